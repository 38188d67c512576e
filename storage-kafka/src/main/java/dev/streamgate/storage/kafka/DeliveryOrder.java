package dev.streamgate.storage.kafka;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import org.apache.kafka.common.TopicPartition;

/**
 * What the event tail has delivered of each partition it reads, so that a record this
 * node wrote can be delivered when Kafka acknowledges it rather than when the tail's
 * consumer fetches it back, in order and once.
 * <p>
 * Per partition it keeps the next offset to deliver. A record acknowledged at exactly
 * that offset is delivered at once and remembered until the fetch brings it back, which
 * then skips it. One acknowledged further on (a record before it was written by another
 * node, another producer, or a transaction whose marker takes an offset) waits for the
 * fetch to close the gap; the fetch is the authority on what the partition holds and in
 * which order, and a record it brings that was not delivered is delivered whatever was
 * acknowledged. A fetch that goes back (the consumer's position was reset) starts the
 * partition over from there, as the tail did before acknowledgements were delivered.
 * <p>
 * Not thread-safe: the tail calls it under one lock, from its consumer's thread and the
 * producers' threads.
 *
 * @param <T> what is delivered
 */
final class DeliveryOrder<T> {

	/** Acknowledged records kept per partition while waiting for a gap to close. */
	static final int EARLY_MAX = 1024;

	/**
	 * Records delivered ahead of a partition's fetch, at most: beyond, acknowledgements
	 * wait for the fetch to catch up (a stalled fetch must not grow them for ever).
	 */
	static final int AHEAD_MAX = 64 * 1024;

	private final Map<TopicPartition, Sequence<T>> sequences = new HashMap<>();

	private final Consumer<T> deliver;

	/**
	 * Delivery through one consumer.
	 * @param deliver hands an item to its listeners
	 */
	DeliveryOrder(Consumer<T> deliver) {
		this.deliver = deliver;
	}

	/**
	 * A partition's reading starts or goes on at the consumer's position.
	 * @param partition the partition
	 * @param position the consumer's position (the offset it fetches next)
	 * @return the next offset to deliver: the position, or past it when acknowledged
	 * records were delivered ahead of the fetch
	 */
	long start(TopicPartition partition, long position) {
		Sequence<T> sequence = this.sequences.computeIfAbsent(partition, (key) -> new Sequence<>());
		sequence.next = Math.max(sequence.next, position);
		return sequence.next;
	}

	/**
	 * The partition is read no more: acknowledgements of it are ignored until it starts
	 * again.
	 * @param partition the partition
	 */
	void stop(TopicPartition partition) {
		this.sequences.remove(partition);
	}

	/**
	 * A record the consumer fetched: delivered unless its acknowledgement was, then any
	 * acknowledged records that were waiting for it.
	 * @param partition its partition
	 * @param offset its offset
	 * @param item what to deliver
	 * @return whether it was delivered now, false when it was at its acknowledgement
	 */
	boolean fetched(TopicPartition partition, long offset, T item) {
		Sequence<T> sequence = this.sequences.computeIfAbsent(partition, (key) -> new Sequence<>());
		ArrayDeque<Long> ahead = sequence.ahead;
		while (!ahead.isEmpty() && ahead.peekFirst() < offset) {
			// acknowledged, yet the partition no longer holds it where it was written
			ahead.pollFirst();
		}
		if (!ahead.isEmpty() && ahead.peekFirst() == offset) {
			ahead.pollFirst();
			return false;
		}
		if (offset < sequence.next) {
			// The consumer went back: what it brings again is delivered again, as before.
			ahead.clear();
			sequence.early.clear();
		}
		this.deliver.accept(item);
		sequence.next = offset + 1;
		sequence.early.headMap(offset, true).clear();
		drain(sequence);
		return true;
	}

	/**
	 * A record this node wrote, acknowledged by Kafka: delivered now when every record
	 * before it was, kept until they are otherwise.
	 * @param partition its partition
	 * @param offset its offset
	 * @param item what to deliver
	 * @return whether it waits for a record that only the fetch brings
	 */
	boolean acknowledged(TopicPartition partition, long offset, T item) {
		Sequence<T> sequence = this.sequences.get(partition);
		if (sequence == null || sequence.next < 0 || offset < sequence.next) {
			// not read here, not known where reading starts, or fetched already
			return false;
		}
		if (offset > sequence.next || sequence.ahead.size() >= AHEAD_MAX) {
			if (offset > sequence.next && sequence.early.size() < EARLY_MAX) {
				sequence.early.put(offset, item);
			}
			return true;
		}
		this.deliver.accept(item);
		sequence.ahead.addLast(offset);
		sequence.next = offset + 1;
		drain(sequence);
		return false;
	}

	private void drain(Sequence<T> sequence) {
		Map.Entry<Long, T> first;
		while ((first = sequence.early.firstEntry()) != null && first.getKey() == sequence.next
				&& sequence.ahead.size() < AHEAD_MAX) {
			sequence.early.pollFirstEntry();
			this.deliver.accept(first.getValue());
			sequence.ahead.addLast(first.getKey());
			sequence.next = first.getKey() + 1;
		}
	}

	/** One partition's deliveries. */
	private static final class Sequence<T> {

		/** The next offset to deliver; -1 before the partition's position is known. */
		long next = -1;

		/**
		 * Offsets delivered at their acknowledgement that the fetch has not brought yet.
		 */
		final ArrayDeque<Long> ahead = new ArrayDeque<>();

		/** Acknowledged records after a gap, by offset. */
		final TreeMap<Long, T> early = new TreeMap<>();

	}

}
