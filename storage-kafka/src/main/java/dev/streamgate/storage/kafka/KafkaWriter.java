package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A Kafka producer behind Monos: sends, batches of sends and transactions.
 * <p>
 * Every call to the producer is made on the writer's own thread, never the subscriber's:
 * a send waits for the metadata of a partition it does not know yet (up to
 * {@code max.block.ms}), and a transaction waits for Kafka throughout. The results are
 * emitted on that thread too, not on the producer's network thread, which would hold
 * every later acknowledgement until what follows a result has run. It is a Reactor
 * non-blocking thread, so that a {@code block()} downstream fails at once rather than
 * wait for a result only this thread can emit.
 * <p>
 * A transactional writer makes its producer on first use, on its thread (initialising
 * transactions waits for the broker), and runs one transaction at a time. A producer that
 * Kafka fenced, or whose transaction could not be aborted, is closed and made again at
 * the next transaction, which aborts whatever the old one left open.
 */
final class KafkaWriter implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(KafkaWriter.class);

	private final Supplier<Producer<String, byte[]>> factory;

	private final boolean transactional;

	private final Scheduler thread;

	/** Used on the writer's thread only, then closed by {@link #close()}. */
	private volatile Producer<String, byte[]> producer;

	private volatile boolean closed;

	KafkaWriter(String name, Supplier<Producer<String, byte[]>> factory, boolean transactional) {
		this.factory = factory;
		this.transactional = transactional;
		this.thread = Schedulers.newSingle("streamgate-kafka-" + name, true);
		if (!transactional) {
			// Making a producer that is not transactional does not wait on Kafka: made
			// now, a configuration error shows at start-up.
			this.producer = factory.get();
		}
	}

	/**
	 * A writer of single records and batches.
	 * @param name what it writes, in its thread's name
	 * @param config the producer's configuration
	 * @return the writer
	 */
	static KafkaWriter of(String name, Map<String, Object> config) {
		return new KafkaWriter(name, () -> producer(config), false);
	}

	/**
	 * A writer of transactions.
	 * @param name what it writes, in its thread's name
	 * @param config the producer's configuration, with a {@code transactional.id}
	 * @return the writer
	 */
	static KafkaWriter transactional(String name, Map<String, Object> config) {
		return new KafkaWriter(name, () -> producer(config), true);
	}

	private static Producer<String, byte[]> producer(Map<String, Object> config) {
		return new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
	}

	/**
	 * Sends a record.
	 * @param record the record
	 * @return where Kafka wrote it, once it acknowledged it
	 */
	Mono<RecordMetadata> send(ProducerRecord<String, byte[]> record) {
		return sendAll(List.of(record)).map((written) -> written.get(0));
	}

	/**
	 * Sends records at once, in their order: a partition gets them in that order, and
	 * they share the producer's requests.
	 * @param records the records
	 * @return where Kafka wrote each, in the same order, once it acknowledged every one;
	 * the first failure otherwise
	 */
	Mono<List<RecordMetadata>> sendAll(List<ProducerRecord<String, byte[]>> records) {
		if (this.transactional) {
			return Mono.error(new IllegalStateException("A transactional writer sends in transactions"));
		}
		if (records.isEmpty()) {
			return Mono.just(List.of());
		}
		return Mono.create((sink) -> run(sink, () -> {
			RecordMetadata[] written = new RecordMetadata[records.size()];
			AtomicInteger unanswered = new AtomicInteger(records.size());
			for (int i = 0; i < written.length; i++) {
				int index = i;
				Callback answered = (metadata, failure) -> {
					if (failure != null) {
						emit(() -> sink.error(failure));
						return;
					}
					written[index] = metadata;
					if (unanswered.decrementAndGet() == 0) {
						emit(() -> sink.success(Arrays.asList(written)));
					}
				};
				this.producer.send(records.get(i), answered);
			}
		}));
	}

	/**
	 * Writes records in one transaction: all of them visible to readers of committed
	 * records, or none.
	 * @param records the records
	 * @return where Kafka wrote each, in the same order, once the transaction committed
	 */
	Mono<List<RecordMetadata>> sendTransactionally(List<ProducerRecord<String, byte[]>> records) {
		if (!this.transactional) {
			return Mono.error(new IllegalStateException("The writer has no transactional.id"));
		}
		return Mono.create((sink) -> run(sink, () -> sink.success(transaction(records))));
	}

	private List<RecordMetadata> transaction(List<ProducerRecord<String, byte[]>> records) {
		if (this.producer == null) {
			Producer<String, byte[]> made = this.factory.get();
			try {
				made.initTransactions();
			}
			catch (RuntimeException ex) {
				made.close(Duration.ZERO);
				throw ex;
			}
			this.producer = made;
		}
		List<Future<RecordMetadata>> sent = new ArrayList<>(records.size());
		try {
			this.producer.beginTransaction();
			for (ProducerRecord<String, byte[]> record : records) {
				sent.add(this.producer.send(record));
			}
			// Sends what is still buffered first, and fails if any record failed.
			this.producer.commitTransaction();
			List<RecordMetadata> written = new ArrayList<>(sent.size());
			for (Future<RecordMetadata> record : sent) {
				written.add(record.get());
			}
			return written;
		}
		catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException
				| UnsupportedVersionException ex) {
			discardProducer();
			throw ex;
		}
		catch (KafkaException ex) {
			abortOrDiscard();
			// A record that failed (too large, say) says more than the commit it failed.
			throw recordFailure(sent).orElse(ex);
		}
		catch (ExecutionException ex) {
			// Not after a commit that succeeded; kept for the checked signature.
			abortOrDiscard();
			throw new KafkaException(ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			discardProducer();
			throw new KafkaException("Interrupted in a transaction", ex);
		}
	}

	private static Optional<KafkaException> recordFailure(List<Future<RecordMetadata>> sent) {
		for (Future<RecordMetadata> record : sent) {
			if (record.isDone()) {
				try {
					record.get();
				}
				catch (ExecutionException ex) {
					// The others of the transaction fail as aborted: not what failed it.
					if (ex.getCause() instanceof KafkaException failure
							&& !(failure instanceof TransactionAbortedException)) {
						return Optional.of(failure);
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return Optional.empty();
				}
			}
		}
		return Optional.empty();
	}

	private void abortOrDiscard() {
		try {
			this.producer.abortTransaction();
		}
		catch (RuntimeException ex) {
			logger.debug("A transaction could not be aborted; the producer is made again for the next one", ex);
			discardProducer();
		}
	}

	private void discardProducer() {
		Producer<String, byte[]> discarded = this.producer;
		this.producer = null;
		try {
			discarded.close(Duration.ZERO);
		}
		catch (RuntimeException ex) {
			logger.debug("Closing a discarded producer failed", ex);
		}
	}

	/** Runs work on the writer's thread; a failure of it (thrown) fails the sink. */
	private <T> void run(MonoSink<T> sink, Runnable work) {
		if (this.closed) {
			sink.error(new KafkaException("The writer is closed"));
			return;
		}
		try {
			this.thread.schedule(() -> {
				try {
					work.run();
				}
				catch (RuntimeException ex) {
					sink.error(ex);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			sink.error(new KafkaException("The writer is closed", ex));
		}
	}

	/**
	 * Emits a result on the writer's thread, or where it came from once that thread is
	 * gone (the producer closing answers what it still sent).
	 */
	private void emit(Runnable result) {
		try {
			this.thread.schedule(result);
		}
		catch (RejectedExecutionException ex) {
			result.run();
		}
	}

	/**
	 * Lets the work already handed over run, then closes the producer, which waits up to
	 * its own timeouts for what it still sends.
	 */
	@Override
	public void close() {
		this.closed = true;
		try {
			this.thread.disposeGracefully().block(Duration.ofSeconds(30));
		}
		catch (RuntimeException ex) {
			this.thread.dispose();
		}
		Producer<String, byte[]> open = this.producer;
		if (open != null) {
			this.producer = null;
			open.close();
		}
	}

}
