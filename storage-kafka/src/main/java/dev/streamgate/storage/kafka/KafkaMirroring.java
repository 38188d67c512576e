package dev.streamgate.storage.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import dev.streamgate.core.event.EventPosition;
import dev.streamgate.core.event.OutgoingEvent;
import dev.streamgate.core.storage.MirrorException;
import dev.streamgate.core.storage.MirrorSource;
import dev.streamgate.core.storage.MirrorWriter;
import dev.streamgate.core.storage.Mirroring;
import dev.streamgate.core.storage.SourceRecord;
import dev.streamgate.core.topic.KafkaEndpoint;
import dev.streamgate.core.topic.Publisher;
import dev.streamgate.core.topic.Topic;

/**
 * {@code kafka} publishers on Kafka. Transactions cannot span the source cluster and the
 * gateway's, so the source offsets are kept on the gateway's side: each write is one
 * transaction of a producer whose {@code transactional.id} is the topic's, holding the
 * mirrored events and a record of the {@code mirrors} topic (compacted, keyed by topic
 * id) with the next source offsets. Opening a writer fences the former owner (its open
 * transaction is aborted, its later ones refused) and reads the last committed offsets,
 * from which the new owner reads the source: no record is lost or mirrored twice.
 */
final class KafkaMirroring implements Mirroring {

	/** The topic of mirror offsets, after the prefix. */
	static final String MIRRORS = "mirrors";

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	/**
	 * How long reading the committed offsets may wait for other mirrors' transactions.
	 */
	private static final Duration OFFSETS_READ = Duration.ofSeconds(30);

	private static final Duration PARTITION_CHECK = Duration.ofSeconds(30);

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final KafkaClients clients;

	private final KafkaEventLog log;

	private final Admin admin;

	private final String offsetsTopic;

	KafkaMirroring(KafkaClients clients, KafkaEventLog log, Admin admin) {
		this.clients = clients;
		this.log = log;
		this.admin = admin;
		this.offsetsTopic = clients.properties().topicPrefix() + MIRRORS;
	}

	@Override
	public MirrorWriter writer(Topic topic) {
		Map<String, Object> config = this.clients.producer("mirror-" + topic.id());
		config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG,
				this.clients.properties().topicPrefix() + "mirror-" + topic.id());
		// A writer that dies inside a transaction holds back read_committed readers of
		// the partitions it wrote to until its successor fences it or this much passes.
		config.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) TIMEOUT.toMillis());
		KafkaProducer<String, byte[]> producer = new KafkaProducer<>(config, new StringSerializer(),
				new ByteArraySerializer());
		try {
			producer.initTransactions();
			return new Writer(topic, producer, committed(topic));
		}
		catch (RuntimeException ex) {
			producer.close(Duration.ZERO);
			throw (ex instanceof MirrorException) ? ex : writeFailure(topic, ex);
		}
	}

	/** The offsets the topic's last committed write left, reading every transaction. */
	private Map<Integer, Long> committed(Topic topic) {
		TopicPartition partition = new TopicPartition(this.offsetsTopic, 0);
		long end;
		try {
			end = this.admin
				.listOffsets(Map.of(partition, OffsetSpec.latest()),
						new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
				.partitionResult(partition)
				.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
				.offset();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw writeFailure(topic, ex);
		}
		catch (ExecutionException | java.util.concurrent.TimeoutException ex) {
			throw writeFailure(topic, ex);
		}
		JsonNode last = null;
		try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(this.clients.readConsumer("mirror-offsets"),
				new StringDeserializer(), new ByteArrayDeserializer())) {
			consumer.assign(List.of(partition));
			consumer.seekToBeginning(List.of(partition));
			long deadline = System.nanoTime() + OFFSETS_READ.toNanos();
			// read_committed: past every transaction written before, once it ended.
			while (consumer.position(partition, TIMEOUT) < end) {
				if (System.nanoTime() > deadline) {
					throw new MirrorException(MirrorException.Kind.WRITE,
							"Reading the offsets of mirror " + topic.id() + " took longer than " + OFFSETS_READ);
				}
				for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
					if (topic.id().equals(record.key())) {
						last = (record.value() != null) ? JSON.readTree(record.value()) : null;
					}
				}
			}
		}
		Map<Integer, Long> next = new HashMap<>();
		// Offsets of another incarnation of the topic, or of another source, do not
		// apply.
		if (last != null && topic.incarnation().equals(last.path("incarnation").asString(null))
				&& source(topic).equals(last.path("source").asString(null))) {
			last.path("next")
				.properties()
				.forEach((entry) -> next.put(Integer.valueOf(entry.getKey()), entry.getValue().asLong()));
		}
		return next;
	}

	@Override
	public MirrorSource source(Topic topic, Map<Integer, Long> next) {
		KafkaEndpoint endpoint = topic.kafkaSource();
		Map<String, Object> config = KafkaTargets.connection(this.clients, endpoint, "mirror-" + topic.id());
		config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
		config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
		config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
		config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
		config.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis() / 2);
		config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
		// New partitions of the source show up within this.
		config.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, (int) PARTITION_CHECK.toMillis());
		KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
				new ByteArrayDeserializer());
		Source source = new Source(endpoint, consumer, topic.publisher() instanceof Publisher.Kafka kafka
				&& kafka.startFrom() == Publisher.StartFrom.EARLIEST);
		try {
			source.assign(next);
			return source;
		}
		catch (RuntimeException ex) {
			source.close();
			throw ex;
		}
	}

	/** The source a topic's offsets count in. */
	private static String source(Topic topic) {
		KafkaEndpoint endpoint = topic.kafkaSource();
		return ((endpoint.bootstrapServers() != null) ? endpoint.bootstrapServers() : "") + "/" + endpoint.topic();
	}

	private static MirrorException writeFailure(Topic topic, Throwable ex) {
		Throwable cause = (ex instanceof ExecutionException && ex.getCause() != null) ? ex.getCause() : ex;
		return new MirrorException(MirrorException.Kind.WRITE, "Writing mirror " + topic.id() + " to Kafka failed: "
				+ cause.getClass().getSimpleName() + ((cause.getMessage() != null) ? ": " + cause.getMessage() : ""));
	}

	/** What went wrong with a source, never with a password. */
	private static MirrorException sourceFailure(KafkaEndpoint endpoint, Throwable ex) {
		Throwable cause = (ex instanceof ExecutionException && ex.getCause() != null) ? ex.getCause() : ex;
		MirrorException.Kind kind = (cause instanceof AuthenticationException
				|| cause instanceof AuthorizationException) ? MirrorException.Kind.AUTH
						: (cause instanceof UnknownTopicOrPartitionException) ? MirrorException.Kind.MISSING
								: MirrorException.Kind.UNREACHABLE;
		return new MirrorException(kind, KafkaTargets.describe(endpoint, cause));
	}

	/** One topic's writer: one transactional producer. */
	private final class Writer implements MirrorWriter {

		private final Topic topic;

		private final KafkaProducer<String, byte[]> producer;

		private Map<Integer, Long> committed;

		Writer(Topic topic, KafkaProducer<String, byte[]> producer, Map<Integer, Long> committed) {
			this.topic = topic;
			this.producer = producer;
			this.committed = Map.copyOf(committed);
		}

		@Override
		public Map<Integer, Long> committed() {
			return this.committed;
		}

		@Override
		public List<EventPosition> append(List<OutgoingEvent> events, Map<Integer, Long> next) {
			ObjectNode offsets = JSON.createObjectNode();
			offsets.put("incarnation", this.topic.incarnation());
			offsets.put("source", source(this.topic));
			ObjectNode byPartition = offsets.putObject("next");
			next.forEach((partition, offset) -> byPartition.put(Integer.toString(partition), offset));
			try {
				this.producer.beginTransaction();
				List<Future<RecordMetadata>> sent = new ArrayList<>(events.size());
				for (ProducerRecord<String, byte[]> record : KafkaMirroring.this.log.records(this.topic, events)) {
					sent.add(this.producer.send(record));
				}
				this.producer.send(new ProducerRecord<>(KafkaMirroring.this.offsetsTopic, 0, this.topic.id(),
						JSON.writeValueAsBytes(offsets)));
				this.producer.commitTransaction();
				List<EventPosition> positions = new ArrayList<>(sent.size());
				for (Future<RecordMetadata> result : sent) {
					positions.add(KafkaEventLog.position(this.topic, result.get()));
				}
				this.committed = Map.copyOf(next);
				return positions;
			}
			catch (ProducerFencedException | InvalidProducerEpochException ex) {
				throw new MirrorException(MirrorException.Kind.FENCED,
						"Another node took over mirror " + this.topic.id());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw writeFailure(this.topic, ex);
			}
			catch (ExecutionException | KafkaException ex) {
				// The writer is closed and opened again: the transaction is aborted then.
				throw writeFailure(this.topic, ex);
			}
		}

		@Override
		public void close() {
			this.producer.close(Duration.ZERO);
		}

	}

	/** One topic's source: a consumer of every partition, without a group. */
	private static final class Source implements MirrorSource {

		private final KafkaEndpoint endpoint;

		private final KafkaConsumer<byte[], byte[]> consumer;

		private final boolean earliest;

		private long partitionsCheckedAt;

		Source(KafkaEndpoint endpoint, KafkaConsumer<byte[], byte[]> consumer, boolean earliest) {
			this.endpoint = endpoint;
			this.consumer = consumer;
			this.earliest = earliest;
		}

		void assign(Map<Integer, Long> next) {
			try {
				List<TopicPartition> partitions = partitions();
				this.consumer.assign(partitions);
				boolean fresh = next.isEmpty();
				for (TopicPartition partition : partitions) {
					Long offset = next.get(partition.partition());
					if (offset != null) {
						this.consumer.seek(partition, offset);
					}
					else if (fresh && !this.earliest) {
						this.consumer.seekToEnd(List.of(partition));
					}
					else {
						this.consumer.seekToBeginning(List.of(partition));
					}
				}
				// Resolves the positions now, while the source is known to answer.
				partitions.forEach((partition) -> this.consumer.position(partition, TIMEOUT));
			}
			catch (KafkaException ex) {
				throw sourceFailure(this.endpoint, ex);
			}
		}

		private List<TopicPartition> partitions() {
			List<PartitionInfo> infos = this.consumer.partitionsFor(this.endpoint.topic(), TIMEOUT);
			if (infos == null || infos.isEmpty()) {
				throw sourceFailure(this.endpoint, new UnknownTopicOrPartitionException("no such topic"));
			}
			this.partitionsCheckedAt = System.nanoTime();
			return infos.stream().map((info) -> new TopicPartition(info.topic(), info.partition())).toList();
		}

		@Override
		public List<SourceRecord> poll(Duration timeout) {
			try {
				if (System.nanoTime() - this.partitionsCheckedAt > PARTITION_CHECK.toNanos()) {
					addNewPartitions();
				}
				List<SourceRecord> records = new ArrayList<>();
				for (ConsumerRecord<byte[], byte[]> record : this.consumer.poll(timeout)) {
					List<Map.Entry<String, String>> headers = new ArrayList<>();
					for (Header header : record.headers()) {
						headers.add(new AbstractMap.SimpleImmutableEntry<>(header.key(), text(header.value())));
					}
					records.add(new SourceRecord(record.partition(), record.offset(), text(record.key()),
							List.copyOf(headers), Instant.ofEpochMilli(record.timestamp()), record.value()));
				}
				return records;
			}
			catch (KafkaException ex) {
				throw sourceFailure(this.endpoint, ex);
			}
		}

		private void addNewPartitions() {
			List<TopicPartition> now = partitions();
			List<TopicPartition> added = now.stream()
				.filter((partition) -> !this.consumer.assignment().contains(partition))
				.toList();
			if (!added.isEmpty()) {
				Map<Integer, Long> positions = positions();
				this.consumer.assign(now);
				positions.forEach((partition, offset) -> this.consumer
					.seek(new TopicPartition(this.endpoint.topic(), partition), offset));
				// Everything in a partition added after the mirror started is new.
				this.consumer.seekToBeginning(added);
			}
		}

		@Override
		public Map<Integer, Long> positions() {
			Map<Integer, Long> positions = new HashMap<>();
			try {
				for (TopicPartition partition : this.consumer.assignment()) {
					positions.put(partition.partition(), this.consumer.position(partition, TIMEOUT));
				}
			}
			catch (KafkaException ex) {
				throw sourceFailure(this.endpoint, ex);
			}
			return positions;
		}

		@Override
		public long lag() {
			try {
				Map<TopicPartition, Long> ends = this.consumer.endOffsets(this.consumer.assignment(), TIMEOUT);
				long lag = 0;
				for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
					lag += Math.max(0, end.getValue() - this.consumer.position(end.getKey(), TIMEOUT));
				}
				return lag;
			}
			catch (KafkaException ex) {
				throw sourceFailure(this.endpoint, ex);
			}
		}

		@Override
		public void close() {
			this.consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ZERO));
		}

		private static String text(byte[] bytes) {
			return (bytes != null) ? new String(bytes, StandardCharsets.UTF_8) : null;
		}

	}

}
