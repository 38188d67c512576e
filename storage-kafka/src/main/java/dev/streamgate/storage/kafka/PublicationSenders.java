package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * The producers of single publications, which hand a record to Kafka on the caller's
 * thread: one that waits up to {@code streamgate.kafka.publish-linger} for others to
 * share its produce request, and one that sends at once.
 * <p>
 * A publication waits only when the one before it on this node came less than a linger
 * earlier: then others are coming, and sharing requests saves the broker and the producer
 * work. Publications further apart than the linger have nothing to wait for; waiting
 * would only add the linger to their latency (at 200 a second it was most of the median:
 * 3.2 ms with every publication lingering, 0.95 ms without; the CPU was the same).
 * <p>
 * The caller's thread is an HTTP event loop, so a send must never wait: both producers
 * have {@code max.block.ms=0}, and a send that would have waited (the producer does not
 * know the partition's leader yet, or its buffer is full) fails at once, before the
 * record is taken, and is tried again {@link #RETRY} later until the write timeout. The
 * failed send has asked for the metadata it lacked, which comes within milliseconds.
 * Handing each record to a {@link KafkaWriter}'s thread instead would cost one more
 * thread woken and one more hand-over per publication.
 * <p>
 * Order holds as with one producer: a publication is answered only once Kafka
 * acknowledged it, so one sent after another's answer lands after it whichever producer
 * carries either; publications in flight together were never ordered.
 */
final class PublicationSenders implements AutoCloseable {

	/** How long a send that would have waited waits before it is tried again. */
	static final Duration RETRY = Duration.ofMillis(10);

	private final Producer<String, byte[]> lingering;

	private final Producer<String, byte[]> immediate;

	private final long lingerNanos;

	private final LongSupplier nanoTime;

	private final AtomicLong previous;

	private final long retries;

	private final Duration retryBound;

	PublicationSenders(Producer<String, byte[]> lingering, Producer<String, byte[]> immediate, Duration linger,
			Duration writeTimeout, LongSupplier nanoTime) {
		this.lingering = lingering;
		this.immediate = immediate;
		this.lingerNanos = linger.toNanos();
		this.nanoTime = nanoTime;
		this.previous = new AtomicLong(nanoTime.getAsLong() - this.lingerNanos);
		this.retries = Math.max(1, writeTimeout.dividedBy(RETRY));
		this.retryBound = writeTimeout.plusSeconds(2);
	}

	/**
	 * One producer for every publication, as when the linger is 0.
	 * @param producer the producer, with {@code max.block.ms=0}
	 * @param writeTimeout how long a send that would wait is tried again
	 * @return senders that always choose it
	 */
	static PublicationSenders of(Producer<String, byte[]> producer, Duration writeTimeout) {
		return new PublicationSenders(producer, producer, Duration.ZERO, writeTimeout, System::nanoTime);
	}

	/**
	 * Sends one record, from the subscribing thread, without waiting on it.
	 * @param record the record
	 * @return where Kafka wrote it, once it acknowledged it
	 */
	Mono<RecordMetadata> send(ProducerRecord<String, byte[]> record) {
		return Mono.defer(() -> send(next(), record));
	}

	/**
	 * Sends one record through one of these producers, from the subscribing thread.
	 * @param producer the producer
	 * @param record the record
	 * @return where Kafka wrote it, once it acknowledged it
	 */
	Mono<RecordMetadata> send(Producer<String, byte[]> producer, ProducerRecord<String, byte[]> record) {
		// A record the producer takes at once is answered within delivery.timeout.ms
		// (the write timeout): no timer. One that would wait is tried again, and its
		// tries and the answer to the record finally taken get the write timeout and
		// two seconds in all, as every publication had before.
		return attempt(producer, record).onErrorResume(NotReady.class,
				(notReady) -> retried(producer, record, this.retries).timeout(this.retryBound));
	}

	/**
	 * A send tried again after {@link #RETRY} while it would wait, at most
	 * {@code retries} times. Not {@code retryWhen}: its companion sink, serialized
	 * subscriber and concatMap, built for every publication though almost none is ever
	 * tried again, were 0.8 % of fanout-200's CPU samples.
	 */
	private Mono<RecordMetadata> retried(Producer<String, byte[]> producer, ProducerRecord<String, byte[]> record,
			long retries) {
		return Mono.delay(RETRY)
			.then(attempt(producer, record))
			.onErrorResume(NotReady.class, (notReady) -> (retries > 1) ? retried(producer, record, retries - 1)
					: Mono.error(notReady.getCause()));
	}

	private static Mono<RecordMetadata> attempt(Producer<String, byte[]> producer,
			ProducerRecord<String, byte[]> record) {
		return Mono.create((sink) -> send(producer, record, sink));
	}

	private static void send(Producer<String, byte[]> producer, ProducerRecord<String, byte[]> record,
			MonoSink<RecordMetadata> sink) {
		Thread caller = Thread.currentThread();
		boolean[] returned = { false };
		try {
			producer.send(record, (metadata, failure) -> {
				if (failure == null) {
					sink.success(metadata);
				}
				// The producer reports a send that could not start (no metadata, no
				// buffer within max.block.ms) to the callback before send returns,
				// on the caller's thread; a record that was taken fails later, on the
				// producer's thread.
				else if (failure instanceof TimeoutException && !returned[0] && Thread.currentThread() == caller) {
					sink.error(new NotReady(failure));
				}
				else {
					sink.error(failure);
				}
			});
		}
		catch (RuntimeException ex) {
			sink.error(ex);
		}
		returned[0] = true;
	}

	/**
	 * The producer for a publication sent now.
	 * @return the lingering producer when the previous publication came less than a
	 * linger ago, the immediate one otherwise
	 */
	Producer<String, byte[]> next() {
		long now = this.nanoTime.getAsLong();
		long before = this.previous.getAndSet(now);
		return (now - before < this.lingerNanos) ? this.lingering : this.immediate;
	}

	/** The producer that waits for others. */
	Producer<String, byte[]> lingering() {
		return this.lingering;
	}

	/** The producer that sends at once. */
	Producer<String, byte[]> immediate() {
		return this.immediate;
	}

	@Override
	public void close() {
		this.lingering.close();
		if (this.immediate != this.lingering) {
			this.immediate.close();
		}
	}

	/** A send that would have waited for metadata or for room in the buffer. */
	static final class NotReady extends RuntimeException {

		NotReady(Throwable cause) {
			super(cause.getMessage(), cause, false, false);
		}

	}

}
