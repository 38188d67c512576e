package dev.streamgate.core.event;

import java.util.Arrays;

/**
 * A position in a topic's events: for each partition, the offset of the last event
 * delivered ({@code -1} when none was). It is the SSE {@code id} of each event, written
 * as the offsets joined by dots ({@code 41} on a one-partition topic, {@code 41.-1.7} on
 * three), and resuming from it delivers exactly the events after it on every partition.
 */
public final class Cursor {

	private final long[] last;

	private Cursor(long[] last) {
		this.last = last;
	}

	/**
	 * The cursor before every event.
	 * @param partitions the topic's partitions
	 * @return the cursor
	 */
	public static Cursor beforeAll(int partitions) {
		long[] last = new long[partitions];
		Arrays.fill(last, -1);
		return new Cursor(last);
	}

	/**
	 * A cursor from its offsets.
	 * @param last the last delivered offset of each partition
	 * @return the cursor
	 */
	public static Cursor of(long... last) {
		return new Cursor(last.clone());
	}

	/**
	 * Parses a cursor a client sent back.
	 * @param text the cursor
	 * @param partitions the topic's partitions now; a cursor from before the topic grew
	 * may have fewer, the new partitions then start from their beginning
	 * @return the cursor
	 * @throws IllegalArgumentException when the text is no cursor of this topic
	 */
	public static Cursor parse(String text, int partitions) {
		String[] parts = text.trim().split("\\.", -1);
		if (parts.length == 0 || parts.length > partitions) {
			throw new IllegalArgumentException("'" + text + "' is not a cursor of a topic with " + partitions
					+ " partition" + ((partitions > 1) ? "s" : ""));
		}
		long[] last = new long[partitions];
		Arrays.fill(last, -1);
		for (int i = 0; i < parts.length; i++) {
			try {
				last[i] = Long.parseLong(parts[i]);
			}
			catch (NumberFormatException ex) {
				throw new IllegalArgumentException("'" + text + "' is not a cursor: '" + parts[i] + "' is no offset");
			}
			if (last[i] < -1) {
				throw new IllegalArgumentException("'" + text + "' is not a cursor: offsets are -1 or more");
			}
		}
		return new Cursor(last);
	}

	public int partitions() {
		return this.last.length;
	}

	/**
	 * The last delivered offset of a partition.
	 * @param partition the partition
	 * @return the offset, {@code -1} for none
	 */
	public long last(int partition) {
		return (partition < this.last.length) ? this.last[partition] : -1;
	}

	/**
	 * Whether an event comes after this cursor, so a client at this cursor has not had it
	 * yet.
	 * @param partition the event's partition
	 * @param offset the event's offset
	 * @return true when the event is new to this cursor
	 */
	public boolean isBefore(int partition, long offset) {
		return offset > last(partition);
	}

	/**
	 * This cursor moved past one event.
	 * @param partition the event's partition
	 * @param offset the event's offset
	 * @return the new cursor
	 */
	public Cursor after(int partition, long offset) {
		long[] next = Arrays.copyOf(this.last, Math.max(this.last.length, partition + 1));
		next[partition] = Math.max(last(partition), offset);
		return new Cursor(next);
	}

	/**
	 * Whether this cursor is at or past another on every partition.
	 * @param other the other cursor
	 * @return true when nothing the other has delivered is missing here
	 */
	public boolean reaches(Cursor other) {
		for (int p = 0; p < other.partitions(); p++) {
			if (last(p) < other.last(p)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * The later of two cursors on each partition.
	 * @param other the other cursor
	 * @return the merged cursor
	 */
	public Cursor max(Cursor other) {
		long[] merged = new long[Math.max(partitions(), other.partitions())];
		for (int p = 0; p < merged.length; p++) {
			merged[p] = Math.max(last(p), other.last(p));
		}
		return new Cursor(merged);
	}

	@Override
	public boolean equals(Object other) {
		return other instanceof Cursor cursor && Arrays.equals(this.last, cursor.last);
	}

	@Override
	public int hashCode() {
		return Arrays.hashCode(this.last);
	}

	/**
	 * The offsets joined by dots: the text of every event id a node sends, made once per
	 * event (a stream pipeline here was a twentieth of a streaming node's event tail).
	 */
	@Override
	public String toString() {
		StringBuilder text = new StringBuilder(this.last.length * 4);
		for (int i = 0; i < this.last.length; i++) {
			if (i > 0) {
				text.append('.');
			}
			text.append(this.last[i]);
		}
		return text.toString();
	}

}
