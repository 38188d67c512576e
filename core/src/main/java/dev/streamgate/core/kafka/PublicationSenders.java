package dev.streamgate.core.kafka;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import reactor.kafka.sender.KafkaSender;

/**
 * The producers of single publications: one that waits up to
 * {@code streamgate.kafka.publish-linger} for others to share its produce request, and
 * one that sends at once. A publication waits only when the one before it on this node
 * came less than a linger earlier: then others are coming, and sharing requests saves the
 * broker and the producer work. Publications further apart than the linger have nothing
 * to wait for; waiting would only add the linger to their latency (at 200 a second it was
 * most of the median: 3.2 ms with every publication lingering, 0.95 ms without; the CPU
 * was the same, docs/benchmarks.md).
 * <p>
 * Order holds as with one producer: a publication is answered only once Kafka
 * acknowledged it, so one sent after another's answer lands after it whichever producer
 * carries either; publications in flight together were never ordered.
 */
final class PublicationSenders implements AutoCloseable {

	private final KafkaSender<String, byte[]> lingering;

	private final KafkaSender<String, byte[]> immediate;

	private final long lingerNanos;

	private final LongSupplier nanoTime;

	private final AtomicLong previous;

	PublicationSenders(KafkaSender<String, byte[]> lingering, KafkaSender<String, byte[]> immediate, Duration linger,
			LongSupplier nanoTime) {
		this.lingering = lingering;
		this.immediate = immediate;
		this.lingerNanos = linger.toNanos();
		this.nanoTime = nanoTime;
		this.previous = new AtomicLong(nanoTime.getAsLong() - this.lingerNanos);
	}

	/**
	 * One producer for every publication, as when the linger is 0.
	 * @param sender the producer
	 * @return senders that always choose it
	 */
	static PublicationSenders of(KafkaSender<String, byte[]> sender) {
		return new PublicationSenders(sender, sender, Duration.ZERO, System::nanoTime);
	}

	/**
	 * The producer for a publication sent now.
	 * @return the lingering producer when the previous publication came less than a
	 * linger ago, the immediate one otherwise
	 */
	KafkaSender<String, byte[]> next() {
		long now = this.nanoTime.getAsLong();
		long before = this.previous.getAndSet(now);
		return (now - before < this.lingerNanos) ? this.lingering : this.immediate;
	}

	/** The producer that waits for others. */
	KafkaSender<String, byte[]> lingering() {
		return this.lingering;
	}

	/** The producer that sends at once. */
	KafkaSender<String, byte[]> immediate() {
		return this.immediate;
	}

	@Override
	public void close() {
		this.lingering.close();
		if (this.immediate != this.lingering) {
			this.immediate.close();
		}
	}

}
