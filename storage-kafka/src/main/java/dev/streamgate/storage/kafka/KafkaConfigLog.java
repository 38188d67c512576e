package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import dev.streamgate.core.problem.StreamgateException;

/**
 * A compacted Kafka topic read from its beginning into memory on every node, and written
 * to through Kafka only (Kafka Connect's {@code KafkaBasedLog} is the model).
 * <p>
 * One thread per log owns the consumer: it assigns every partition (no consumer group, so
 * every node sees every record), applies each record in offset order, and then completes
 * the writes of this node that it has now read back. A write therefore returns only after
 * this node's view holds it.
 */
final class KafkaConfigLog implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(KafkaConfigLog.class);

	/**
	 * How long a poll waits when nothing arrives, once the log has been read to its end.
	 * A record ends the poll at once, and a write's waiter is checked as it is made, so
	 * this only paces an idle reader.
	 */
	private static final Duration POLL = Duration.ofSeconds(1);

	/**
	 * How long a poll waits while the reader catches up at start: a log whose end no
	 * record reaches (a transaction's marker last) is seen read only when a poll returns,
	 * and readiness waits for it.
	 */
	private static final Duration CATCH_UP_POLL = Duration.ofMillis(200);

	private final String topic;

	private final Map<String, Object> consumerConfig;

	private final KafkaWriter writer;

	private final Consumer<Entry> applier;

	private final Duration writeTimeout;

	private final Map<Integer, Long> positions = new ConcurrentHashMap<>();

	private final ConcurrentLinkedQueue<Waiter> waiters = new ConcurrentLinkedQueue<>();

	private final ConsumerThread thread;

	private volatile boolean caughtUp;

	private volatile List<TopicPartition> partitions;

	KafkaConfigLog(String topic, KafkaClients clients, KafkaWriter writer, Consumer<Entry> applier) {
		this(topic, clients, clients.followerConsumer(topic), writer, applier);
	}

	/**
	 * A log read with the given consumer settings.
	 * @param topic the Kafka topic
	 * @param clients the clients
	 * @param consumerConfig the settings of the reader (e.g.
	 * {@link KafkaClients#bulkConsumer})
	 * @param writer the writer of records
	 * @param applier applies each record, in offset order, on the reader's thread
	 */
	KafkaConfigLog(String topic, KafkaClients clients, Map<String, Object> consumerConfig, KafkaWriter writer,
			Consumer<Entry> applier) {
		this.topic = topic;
		this.consumerConfig = consumerConfig;
		this.writer = writer;
		this.applier = applier;
		this.writeTimeout = clients.properties().writeTimeout();
		this.thread = new ConsumerThread("streamgate-log-" + topic, this::run);
	}

	void start() {
		this.thread.start();
	}

	boolean isCaughtUp() {
		return this.caughtUp;
	}

	/**
	 * Waits, at start-up, until every record written before has been read.
	 * @param timeout how long to wait; readiness stays down if it passes
	 */
	void awaitCaughtUp(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!this.caughtUp && System.nanoTime() < deadline) {
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/**
	 * Writes a record and completes once this node has read it back.
	 * @param key the record key
	 * @param value the value, or {@code null} for a tombstone
	 * @return the offset of the record
	 */
	Mono<Long> write(String key, byte[] value) {
		return bounded(this.writer.send(record(key, value))
			.flatMap((written) -> awaitRead(written.partition(), written.offset()).thenReturn(written.offset())));
	}

	/**
	 * Writes a record and completes once Kafka acknowledged it, without waiting for this
	 * node to read it back: for records that are written often and read rarely.
	 * @param key the record key
	 * @param value the value, or {@code null} for a tombstone
	 * @return completes once acknowledged
	 */
	Mono<Void> append(String key, byte[] value) {
		return bounded(this.writer.send(record(key, value)).then());
	}

	/**
	 * Writes records in one send, as {@link #append} writes one: one timer, and the
	 * producer's batches rather than a send of each record.
	 * @param values the records' values by key, in the order to write them
	 * @return completes once Kafka acknowledged every record
	 */
	Mono<Void> appendAll(Map<String, byte[]> values) {
		if (values.isEmpty()) {
			return Mono.empty();
		}
		return bounded(this.writer
			.sendAll(values.entrySet().stream().map((entry) -> record(entry.getKey(), entry.getValue())).toList())
			.then());
	}

	/**
	 * Writes a record to the partition of another key's records, as {@link #write} does:
	 * records of two keys whose order matters.
	 * @param key the record key
	 * @param value the value
	 * @param partitionKey the key whose partition it goes to
	 * @return the partition and offset of the record, as
	 * {@link AnswerIndex#position(int, long)} packs them
	 */
	Mono<Long> writeBeside(String key, byte[] value, String partitionKey) {
		return bounded(Mono.defer(() -> {
			List<TopicPartition> assigned = this.partitions;
			if (assigned == null) {
				return Mono.error(new KafkaException("The reader of " + this.topic + " has not started"));
			}
			int partition = KafkaClients.partitionOf(partitionKey, assigned.size());
			ProducerRecord<String, byte[]> record = new ProducerRecord<>(this.topic, partition, key, value);
			return this.writer.send(record)
				.flatMap((written) -> awaitRead(partition, written.offset())
					.thenReturn(AnswerIndex.position(partition, written.offset())));
		}));
	}

	private ProducerRecord<String, byte[]> record(String key, byte[] value) {
		return new ProducerRecord<>(this.topic, key, value);
	}

	/**
	 * A call to Kafka given the write timeout (and two seconds for the reader), its
	 * failures answered as {@code kafka-unavailable}.
	 */
	private <T> Mono<T> bounded(Mono<T> call) {
		return call.timeout(this.writeTimeout.plusSeconds(2))
			.onErrorMap((ex) -> !(ex instanceof StreamgateException), StreamgateException::kafkaUnavailable);
	}

	private Mono<Void> awaitRead(int partition, long offset) {
		return Mono.create((sink) -> {
			Waiter waiter = new Waiter(partition, offset, sink);
			this.waiters.add(waiter);
			sink.onDispose(() -> this.waiters.remove(waiter));
			completeWaiters();
		});
	}

	private void completeWaiters() {
		for (Iterator<Waiter> it = this.waiters.iterator(); it.hasNext();) {
			Waiter waiter = it.next();
			if (this.positions.getOrDefault(waiter.partition(), 0L) > waiter.offset()) {
				it.remove();
				waiter.sink().success();
			}
		}
	}

	private void run() {
		KafkaConsumer<String, byte[]> kafkaConsumer = this.thread
			.polls(new KafkaConsumer<>(this.consumerConfig, new StringDeserializer(), new ByteArrayDeserializer()));
		try {
			List<TopicPartition> partitions = assign(kafkaConsumer);
			this.partitions = partitions;
			Map<TopicPartition, Long> target = endOffsets(kafkaConsumer, partitions);
			// Where reading starts: a log with nothing left to read (empty, or every
			// record
			// deleted) is read up to its end before any poll.
			updatePositions(kafkaConsumer, partitions);
			long applied = 0;
			while (this.thread.running()) {
				if (!this.caughtUp && reached(target)) {
					this.caughtUp = true;
					logger.info("Read " + this.topic + " up to its end (" + applied + " records)");
				}
				completeWaiters();
				for (ConsumerRecord<String, byte[]> record : kafkaConsumer.poll(this.caughtUp ? POLL : CATCH_UP_POLL)) {
					apply(record);
					applied++;
				}
				updatePositions(kafkaConsumer, partitions);
			}
		}
		catch (WakeupException ex) {
			// close() asked the loop to stop
		}
		catch (RuntimeException ex) {
			if (this.thread.running()) {
				logger.error("Reader of " + this.topic + " stopped", ex);
			}
		}
		finally {
			// Without waiting for the fetch in flight (a follower's waits seconds on the
			// broker): this reader is in no group, and the broker forgets its fetch
			// session.
			kafkaConsumer.close(CloseOptions.timeout(Duration.ZERO));
		}
	}

	private List<TopicPartition> assign(KafkaConsumer<String, byte[]> kafkaConsumer) {
		while (true) {
			try {
				List<PartitionInfo> infos = kafkaConsumer.partitionsFor(this.topic, Duration.ofSeconds(5));
				if (infos != null && !infos.isEmpty()) {
					List<TopicPartition> partitions = infos.stream()
						.map((info) -> new TopicPartition(this.topic, info.partition()))
						.toList();
					kafkaConsumer.assign(partitions);
					kafkaConsumer.seekToBeginning(partitions);
					return partitions;
				}
			}
			catch (org.apache.kafka.common.errors.TimeoutException ex) {
				logger.debug("Waiting for partitions of " + this.topic);
			}
		}
	}

	private Map<TopicPartition, Long> endOffsets(KafkaConsumer<String, byte[]> kafkaConsumer,
			List<TopicPartition> partitions) {
		while (true) {
			try {
				return new HashMap<>(kafkaConsumer.endOffsets(partitions, Duration.ofSeconds(5)));
			}
			catch (org.apache.kafka.common.errors.TimeoutException ex) {
				logger.debug("Waiting for end offsets of " + this.topic);
			}
		}
	}

	private void apply(ConsumerRecord<String, byte[]> record) {
		try {
			this.applier.accept(new Entry(record.key(), record.value(), record.partition(), record.offset(),
					Instant.ofEpochMilli(record.timestamp())));
		}
		catch (RuntimeException ex) {
			logger.warn("Skipped unreadable record " + record.offset() + " of " + this.topic + ": " + ex.getMessage());
		}
	}

	private void updatePositions(KafkaConsumer<String, byte[]> kafkaConsumer, List<TopicPartition> partitions) {
		for (TopicPartition partition : partitions) {
			try {
				this.positions.put(partition.partition(), kafkaConsumer.position(partition, Duration.ofSeconds(1)));
			}
			catch (org.apache.kafka.common.errors.TimeoutException ex) {
				// Kafka unreachable: the next loop tries again.
			}
		}
	}

	private boolean reached(Map<TopicPartition, Long> target) {
		return target.entrySet()
			.stream()
			.allMatch((end) -> this.positions.getOrDefault(end.getKey().partition(), 0L) >= end.getValue());
	}

	@Override
	public void close() {
		this.thread.stop();
		this.waiters.forEach((waiter) -> waiter.sink().error(new KafkaException("Shutting down")));
	}

	/**
	 * One record of the log as the applier sees it.
	 *
	 * @param key the record key
	 * @param value the value, {@code null} for a tombstone
	 * @param partition the record's partition
	 * @param offset the record's offset
	 * @param timestamp the record's timestamp
	 */
	record Entry(String key, byte[] value, int partition, long offset, Instant timestamp) {
	}

	private record Waiter(int partition, long offset, MonoSink<Void> sink) {
	}

}
