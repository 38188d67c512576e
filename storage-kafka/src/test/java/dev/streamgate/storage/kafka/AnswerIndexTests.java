package dev.streamgate.storage.kafka;

import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AnswerIndexTests {

	private static final int NOW = 1_000_000;

	private final Random random = new Random(42);

	@Test
	void keysAreFoundUntilTheirWindowPassesAndRemovedOnesAreNot() {
		AnswerIndex index = new AnswerIndex(1 << 20);
		long[] fingerprints = fingerprints(5_000);
		for (int i = 0; i < fingerprints.length; i++) {
			index.put(fingerprints[i], AnswerIndex.position(i % 3, i), NOW + i, NOW - 1);
		}
		for (int i = 0; i < fingerprints.length; i += 2) {
			index.remove(fingerprints[i]);
		}
		for (int i = 0; i < fingerprints.length; i++) {
			long position = index.get(fingerprints[i], NOW - 1);
			if (i % 2 == 0) {
				assertThat(position).as("removed %d", i).isEqualTo(-1);
			}
			else {
				assertThat(AnswerIndex.partition(position)).isEqualTo(i % 3);
				assertThat(AnswerIndex.offset(position)).isEqualTo(i);
			}
		}
		// The window has passed for the first 1000.
		assertThat(index.get(fingerprints[999], NOW + 999)).isEqualTo(-1);
		assertThat(index.get(fingerprints[1001], NOW + 999)).isEqualTo(AnswerIndex.position(1001 % 3, 1001));
		assertThat(index.size()).isEqualTo(2_500);
	}

	@Test
	void keysPastTheirWindowMakeRoomBeforeTheTableGrows() {
		AnswerIndex index = new AnswerIndex(1 << 20);
		long[] fingerprints = fingerprints(100_000);
		for (int i = 0; i < fingerprints.length; i++) {
			// A window of 500 seconds, one key a second.
			index.put(fingerprints[i], i, NOW + i, NOW + i - 500);
		}
		assertThat(index.size()).isLessThan(2_000);
		assertThat(index.bytes()).isLessThanOrEqualTo(4096L * AnswerIndex.SLOT_BYTES);
		assertThat(index.get(fingerprints[99_999], NOW + 99_999 - 500)).isEqualTo(99_999);
		assertThat(index.forgottenEarly()).isZero();
	}

	@Test
	void aFullIndexForgetsItsOldestKeysAndCountsThem() {
		long maxBytes = 1 << 16;
		AnswerIndex index = new AnswerIndex(maxBytes);
		long[] fingerprints = fingerprints(20_000);
		for (int i = 0; i < fingerprints.length; i++) {
			index.put(fingerprints[i], i, NOW + i, NOW - 1);
		}
		assertThat(index.bytes()).isLessThanOrEqualTo(maxBytes);
		assertThat(index.forgottenEarly()).isEqualTo(fingerprints.length - index.size());
		// The newest are kept, the oldest forgotten.
		assertThat(index.get(fingerprints[19_999], NOW - 1)).isEqualTo(19_999);
		assertThat(index.get(fingerprints[0], NOW - 1)).isEqualTo(-1);
	}

	private long[] fingerprints(int n) {
		byte[] sha256 = new byte[32];
		long[] fingerprints = new long[n];
		for (int i = 0; i < n; i++) {
			this.random.nextBytes(sha256);
			fingerprints[i] = AnswerIndex.fingerprint(sha256);
		}
		return fingerprints;
	}

}
