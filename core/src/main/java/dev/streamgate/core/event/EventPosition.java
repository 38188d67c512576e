package dev.streamgate.core.event;

/**
 * Where one appended event landed.
 *
 * @param partition the partition
 * @param offset the offset
 * @param partitions how many partitions the topic has
 */
public record EventPosition(int partition, long offset, int partitions) {

	/**
	 * The position as clients see it: the offset on one-partition topics (the same string
	 * as the event's SSE {@code id}), {@code partition:offset} otherwise.
	 */
	@Override
	public String toString() {
		return (this.partitions == 1) ? Long.toString(this.offset) : this.partition + ":" + this.offset;
	}

}
