package dev.streamgate.storage.kafka;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * Consumers for reads of the event log, kept between reads. A consumer made for each read
 * costs a connection, a metadata request and its metrics, and closing it as much again: a
 * snapshot publication to a shared topic reads the records after its document (past other
 * topics' records) every time, and that was most of its cost and latency. Only a consumer
 * whose read ended normally is kept; one whose read was cancelled or failed is closed.
 * <p>
 * A consumer kept longer than the idle time without a read is closed by
 * {@link #closeIdle()}: a burst of reads at once leaves as many consumers, each with an
 * epoll selector, its wake-up descriptor and a broker connection, and a node whose reads
 * have calmed down should not hold them for ever. The most recently given back is taken
 * first, so that the ones left over are the ones that age.
 */
final class ReadConsumers implements AutoCloseable {

	private final Supplier<KafkaConsumer<String, ByteBuffer>> factory;

	private final int max;

	private final long idleNanos;

	private final LongSupplier nanoTime;

	/** Newest first. */
	private final Deque<Kept> idle = new ArrayDeque<>();

	private boolean closed;

	ReadConsumers(Supplier<KafkaConsumer<String, ByteBuffer>> factory, int max, Duration idle, LongSupplier nanoTime) {
		this.factory = factory;
		this.max = max;
		this.idleNanos = idle.toNanos();
		this.nanoTime = nanoTime;
	}

	/**
	 * A consumer with no assignment, for one read on one thread.
	 * @return a kept consumer, or a new one
	 */
	KafkaConsumer<String, ByteBuffer> take() {
		Kept kept;
		synchronized (this) {
			kept = this.idle.pollFirst();
		}
		return (kept != null) ? kept.consumer() : this.factory.get();
	}

	/**
	 * Takes back the consumer of a read that ended normally.
	 * @param consumer the consumer, no longer used by its read
	 */
	void give(KafkaConsumer<String, ByteBuffer> consumer) {
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
				this.idle.addFirst(new Kept(consumer, this.nanoTime.getAsLong()));
			}
		}
		if (!kept) {
			discard(consumer);
		}
	}

	/**
	 * Closes the consumers kept without a read for longer than the idle time.
	 * @return how many were closed
	 */
	int closeIdle() {
		long now = this.nanoTime.getAsLong();
		List<KafkaConsumer<String, ByteBuffer>> old = new ArrayList<>();
		synchronized (this) {
			while (!this.idle.isEmpty() && now - this.idle.peekLast().since() >= this.idleNanos) {
				old.add(this.idle.pollLast().consumer());
			}
		}
		old.forEach(this::discard);
		return old.size();
	}

	/** How many consumers are kept now. */
	synchronized int kept() {
		return this.idle.size();
	}

	/**
	 * Closes the consumer of a read that was cancelled or failed, without waiting for the
	 * broker: it is in no group, and the broker forgets its fetch session.
	 * @param consumer the consumer
	 */
	void discard(KafkaConsumer<String, ByteBuffer> consumer) {
		consumer.close(CloseOptions.timeout(Duration.ZERO));
	}

	@Override
	public void close() {
		List<Kept> all;
		synchronized (this) {
			this.closed = true;
			all = new ArrayList<>(this.idle);
			this.idle.clear();
		}
		all.forEach((kept) -> discard(kept.consumer()));
	}

	private record Kept(KafkaConsumer<String, ByteBuffer> consumer, long since) {
	}

}
