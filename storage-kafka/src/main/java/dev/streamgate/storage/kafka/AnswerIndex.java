package dev.streamgate.storage.kafka;

import java.util.Arrays;

/**
 * Where the answer to each Idempotency-Key lies in Kafka, in 20 bytes a key: a 64-bit
 * fingerprint of the key, the answer record's partition and offset, and the second it was
 * answered, in three parallel arrays probed linearly. The answers themselves stay in
 * Kafka; only the most recent are kept whole ({@link KafkaIdempotencyStore}).
 * <p>
 * The arrays hold at most {@code maxBytes}: at three quarters full, the keys whose window
 * has passed are dropped, and the table doubles if more than half of it is still taken;
 * when it may not double, the oldest keys are forgotten down to half before their window
 * has passed (counted in {@link #forgottenEarly()}). A table of {@code n} slots holds up
 * to {@code 0.75 n} keys, so a key costs between 27 and 53 bytes (40 on average).
 * <p>
 * Not thread-safe: the store calls it under its own lock.
 */
final class AnswerIndex {

	/** Bytes a slot takes: fingerprint, position, second. */
	static final int SLOT_BYTES = Long.BYTES + Long.BYTES + Integer.BYTES;

	private static final int MIN_SLOTS = 1 << 10;

	private static final long EMPTY = 0;

	private final int maxSlots;

	private long[] fingerprints;

	private long[] positions;

	private int[] seconds;

	private int size;

	private long forgottenEarly;

	/**
	 * An empty index.
	 * @param maxBytes the most its arrays may take
	 */
	AnswerIndex(long maxBytes) {
		this.maxSlots = Integer.highestOneBit((int) Math.min(1 << 30, Math.max(MIN_SLOTS, maxBytes / SLOT_BYTES)));
		allocate(MIN_SLOTS);
	}

	/**
	 * Remembers where a key's answer lies.
	 * @param fingerprint the key's fingerprint (see {@link #fingerprint})
	 * @param position the partition and offset, as {@link #position} packs them
	 * @param second when it was answered, in epoch seconds
	 * @param expired answers of this second or earlier are past their window
	 */
	void put(long fingerprint, long position, int second, int expired) {
		int slot = find(fingerprint);
		if (slot >= 0) {
			this.positions[slot] = position;
			this.seconds[slot] = second;
			return;
		}
		if ((this.size + 1) * 4L > this.fingerprints.length * 3L) {
			makeRoom(expired);
		}
		insert(fingerprint, position, second);
	}

	/**
	 * Where a key's answer lies.
	 * @param fingerprint the key's fingerprint
	 * @param expired answers of this second or earlier are past their window
	 * @return the position, or -1 when the key is not known or its window has passed
	 */
	long get(long fingerprint, int expired) {
		int slot = find(fingerprint);
		return (slot >= 0 && this.seconds[slot] > expired) ? this.positions[slot] : -1;
	}

	/**
	 * Forgets a key.
	 * @param fingerprint the key's fingerprint
	 */
	void remove(long fingerprint) {
		int slot = find(fingerprint);
		if (slot < 0) {
			return;
		}
		// Backward-shift deletion: moves the later keys of the probe run into the gap, so
		// that no lookup stops early at it.
		int mask = this.fingerprints.length - 1;
		int gap = slot;
		for (int next = (gap + 1) & mask; this.fingerprints[next] != EMPTY; next = (next + 1) & mask) {
			int home = home(this.fingerprints[next]);
			if (((next - home) & mask) >= ((next - gap) & mask)) {
				this.fingerprints[gap] = this.fingerprints[next];
				this.positions[gap] = this.positions[next];
				this.seconds[gap] = this.seconds[next];
				gap = next;
			}
		}
		this.fingerprints[gap] = EMPTY;
		this.size--;
	}

	int size() {
		return this.size;
	}

	/**
	 * @return the bytes its arrays take
	 */
	long bytes() {
		return (long) this.fingerprints.length * SLOT_BYTES;
	}

	/**
	 * @return how many keys were forgotten before their window had passed
	 */
	long forgottenEarly() {
		return this.forgottenEarly;
	}

	/**
	 * The fingerprint of a key: 64 bits of its SHA-256 (never zero, which marks a free
	 * slot). Two keys share one with a chance of about n / 2^64 for a lookup among n
	 * keys; the store reads the key back from Kafka before it trusts a match.
	 * @param sha256 the key's SHA-256
	 * @return its fingerprint
	 */
	static long fingerprint(byte[] sha256) {
		long fingerprint = 0;
		for (int i = 0; i < Long.BYTES; i++) {
			fingerprint = (fingerprint << 8) | (sha256[i] & 0xff);
		}
		return (fingerprint != EMPTY) ? fingerprint : 1;
	}

	/**
	 * Packs a record's place in Kafka.
	 * @param partition the partition (under 2^15)
	 * @param offset the offset (under 2^48)
	 * @return both in one long
	 */
	static long position(int partition, long offset) {
		return ((long) partition << 48) | offset;
	}

	static int partition(long position) {
		return (int) (position >>> 48);
	}

	static long offset(long position) {
		return position & ((1L << 48) - 1);
	}

	/**
	 * Called at three quarters full: drops the keys past their window, and if more than
	 * half the table is still taken, doubles it or, at its largest, forgets the oldest
	 * keys down to half (so that the next call is a quarter of the table away).
	 */
	private void makeRoom(int expired) {
		int length = this.fingerprints.length;
		keepOnly(expired);
		if (this.size * 2L <= length) {
			return;
		}
		if (length < this.maxSlots) {
			rehash(length * 2);
			return;
		}
		forgetOldest(this.size - length / 2);
	}

	/** Drops the keys answered at {@code expired} or before, keeping the table's size. */
	private void keepOnly(int expired) {
		long[] oldFingerprints = this.fingerprints;
		long[] oldPositions = this.positions;
		int[] oldSeconds = this.seconds;
		allocate(oldFingerprints.length);
		for (int i = 0; i < oldFingerprints.length; i++) {
			if (oldFingerprints[i] != EMPTY && oldSeconds[i] > expired) {
				insert(oldFingerprints[i], oldPositions[i], oldSeconds[i]);
			}
		}
	}

	private void forgetOldest(int count) {
		int[] answered = new int[this.size];
		int n = 0;
		for (int i = 0; i < this.fingerprints.length; i++) {
			if (this.fingerprints[i] != EMPTY) {
				answered[n++] = this.seconds[i];
			}
		}
		Arrays.sort(answered);
		int before = this.size;
		keepOnly(answered[Math.max(0, count - 1)]);
		this.forgottenEarly += before - this.size;
	}

	private void rehash(int slots) {
		long[] oldFingerprints = this.fingerprints;
		long[] oldPositions = this.positions;
		int[] oldSeconds = this.seconds;
		allocate(slots);
		for (int i = 0; i < oldFingerprints.length; i++) {
			if (oldFingerprints[i] != EMPTY) {
				insert(oldFingerprints[i], oldPositions[i], oldSeconds[i]);
			}
		}
	}

	private void allocate(int slots) {
		this.fingerprints = new long[slots];
		this.positions = new long[slots];
		this.seconds = new int[slots];
		this.size = 0;
	}

	private void insert(long fingerprint, long position, int second) {
		int mask = this.fingerprints.length - 1;
		int slot = home(fingerprint);
		while (this.fingerprints[slot] != EMPTY) {
			slot = (slot + 1) & mask;
		}
		this.fingerprints[slot] = fingerprint;
		this.positions[slot] = position;
		this.seconds[slot] = second;
		this.size++;
	}

	private int find(long fingerprint) {
		int mask = this.fingerprints.length - 1;
		for (int slot = home(fingerprint); this.fingerprints[slot] != EMPTY; slot = (slot + 1) & mask) {
			if (this.fingerprints[slot] == fingerprint) {
				return slot;
			}
		}
		return -1;
	}

	private int home(long fingerprint) {
		// The fingerprint is already uniform (a hash's bits): its low bits will do.
		return (int) fingerprint & (this.fingerprints.length - 1);
	}

}
