package dev.streamgate.core.kafka;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * Consumers for reads of the event log, kept between reads. A consumer made for each read
 * costs a connection, a metadata request and its metrics, and closing it as much again: a
 * snapshot publication to a shared topic reads the records after its document (past other
 * topics' records) every time, and that was most of its cost and latency. Only a consumer
 * whose read ended normally is kept; one whose read was cancelled or failed is closed.
 */
final class ReadConsumers implements AutoCloseable {

	private final Supplier<KafkaConsumer<String, byte[]>> factory;

	private final int max;

	private final Deque<KafkaConsumer<String, byte[]>> idle = new ArrayDeque<>();

	private boolean closed;

	ReadConsumers(Supplier<KafkaConsumer<String, byte[]>> factory, int max) {
		this.factory = factory;
		this.max = max;
	}

	/**
	 * A consumer with no assignment, for one read on one thread.
	 * @return a kept consumer, or a new one
	 */
	KafkaConsumer<String, byte[]> take() {
		KafkaConsumer<String, byte[]> kept;
		synchronized (this) {
			kept = this.idle.pollFirst();
		}
		return (kept != null) ? kept : this.factory.get();
	}

	/**
	 * Takes back the consumer of a read that ended normally.
	 * @param consumer the consumer, no longer used by its read
	 */
	void give(KafkaConsumer<String, byte[]> consumer) {
		try {
			consumer.unsubscribe();
		}
		catch (RuntimeException ex) {
			discard(consumer);
			return;
		}
		boolean kept;
		synchronized (this) {
			kept = !this.closed && this.idle.size() < this.max;
			if (kept) {
				this.idle.addFirst(consumer);
			}
		}
		if (!kept) {
			discard(consumer);
		}
	}

	/**
	 * Closes the consumer of a read that was cancelled or failed, without waiting for the
	 * broker: it is in no group, and the broker forgets its fetch session.
	 * @param consumer the consumer
	 */
	void discard(KafkaConsumer<String, byte[]> consumer) {
		consumer.close(CloseOptions.timeout(Duration.ZERO));
	}

	@Override
	public void close() {
		List<KafkaConsumer<String, byte[]>> all;
		synchronized (this) {
			this.closed = true;
			all = new ArrayList<>(this.idle);
			this.idle.clear();
		}
		all.forEach(this::discard);
	}

}
