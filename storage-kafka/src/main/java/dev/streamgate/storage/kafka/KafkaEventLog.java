package dev.streamgate.storage.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.CursorFormat;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventAttributes;
import dev.streamgate.core.event.EventLogStatus;
import dev.streamgate.core.event.EventPosition;
import dev.streamgate.core.event.EventStorageProperties;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.OutgoingEvent;
import dev.streamgate.core.event.WriterFencedException;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.storage.EventLog;
import dev.streamgate.core.topic.Topic;

/**
 * Topics' events in Kafka, in one of two layouts.
 * <p>
 * Shared storage: the Kafka topic {@code <prefix>events} with a fixed number of
 * partitions holds the events of every shared topic. A topic's events are all in the
 * partition chosen at its creation ({@link Topic#sharedPartition()}, the partition its id
 * routes to through NGINX's hash; for a topic stored before that was chosen, the
 * partition its id hashes to by murmur2, as Kafka's default partitioner), record key =
 * topic id, header {@code streamgate-incarnation} = the topic's incarnation, so that a
 * topic created again under the same id never reads its predecessor's events. A shared
 * topic has one logical partition whose offsets are the shared partition's: its cursor is
 * a position in that partition, and the events after it are the records after it with the
 * topic's key and incarnation. Deleting such a topic deletes nothing in Kafka; its
 * records age out with the shared log's retention. A topic with a shorter retention sees
 * only what is younger than it (the rest is filtered out on reads).
 * <p>
 * Dedicated storage: the Kafka topic {@code <prefix>events.<id>} with the topic's own
 * partitions and retention, created and deleted with it.
 * <p>
 * Every record has the header {@code streamgate-type} (snapshot, patch, event, problem).
 * An event published with a type has it in the header {@code ce_type}, where the
 * CloudEvents Kafka binding keeps it. An event published with a key has it as the record
 * key in dedicated storage (so that the events of one key share a partition), and in the
 * header {@code streamgate-key} in shared storage, whose record key is the topic id.
 * Other headers than these are the event's headers, handed to subscribers' filters.
 */
public final class KafkaEventLog implements EventLog {

	static final String TYPE_HEADER = "streamgate-type";

	static final String INCARNATION_HEADER = "streamgate-incarnation";

	static final String EVENT_TYPE_HEADER = "ce_type";

	static final String KEY_HEADER = "streamgate-key";

	/** The prefix of the headers that are streamgate's, not the event's. */
	private static final String OWN_HEADERS = "streamgate-";

	private static final Duration READ_POLL = Duration.ofMillis(200);

	/** Consumers kept between reads: about as many as reads run at once. */
	private static final int READERS_KEPT = 8;

	/** How long a kept consumer waits for its next read before it is closed. */
	private static final Duration READERS_IDLE = Duration.ofSeconds(10);

	private final Admin admin;

	private final String prefix;

	private final KafkaClients clients;

	/** The topics this node writes as their only writer across the cluster. */
	private final OwnedWriters owned;

	private final PublicationSenders senders;

	private final KafkaWriter transactionalWriter;

	private final Duration writeTimeout;

	private final String sharedName;

	private final int sharedPartitions;

	private final Duration sharedRetention;

	private final ReadConsumers readers;

	private final SharedScans scans;

	/** Told of each single publication Kafka acknowledged (the node's event tail). */
	private volatile BiConsumer<ProducerRecord<String, byte[]>, RecordMetadata> written = (record, metadata) -> {
	};

	private final Disposable closingIdleReaders;

	KafkaEventLog(Admin admin, KafkaClients clients, PublicationSenders senders, KafkaWriter transactionalWriter,
			EventStorageProperties storage) {
		this.admin = admin;
		this.clients = clients;
		this.prefix = clients.properties().topicPrefix();
		this.senders = senders;
		this.transactionalWriter = transactionalWriter;
		this.writeTimeout = clients.properties().writeTimeout();
		this.sharedName = sharedName(this.prefix);
		this.sharedPartitions = storage.sharedPartitions();
		this.sharedRetention = storage.sharedRetention();
		this.readers = new ReadConsumers(() -> consumer(clients.readConsumer("read")), READERS_KEPT, READERS_IDLE,
				System::nanoTime);
		this.scans = new SharedScans(this.readers, this::route, this::event, READ_POLL, this.writeTimeout,
				Schedulers.boundedElastic());
		// Closing a consumer that is in no group does not wait for the broker, but it is
		// not an event loop's work either.
		long sweep = READERS_IDLE.toMillis() / 2;
		this.owned = new OwnedWriters(clients);
		this.closingIdleReaders = Schedulers.boundedElastic()
			.schedulePeriodically(this.readers::closeIdle, sweep, sweep, TimeUnit.MILLISECONDS);
	}

	/**
	 * Who is told of each single publication once Kafka acknowledged it, on the thread
	 * that received the acknowledgement. A batch is not told: it is written in a
	 * transaction, which is not read until it commits.
	 * @param listener the listener, which must not throw
	 */
	void onWritten(BiConsumer<ProducerRecord<String, byte[]>, RecordMetadata> listener) {
		this.written = listener;
	}

	/** Closes the consumers kept for reads. */
	public void close() {
		this.owned.close();
		this.closingIdleReaders.dispose();
		this.scans.close();
		this.readers.close();
	}

	/** The state of one read: its consumer, and whether it read all it was asked for. */
	private static final class Read {

		private final KafkaConsumer<String, ByteBuffer> consumer;

		private boolean ended;

		Read(KafkaConsumer<String, ByteBuffer> consumer) {
			this.consumer = consumer;
		}

	}

	/**
	 * A consumer of events: it hands each record's value as a view of the fetched bytes,
	 * not a copy, and {@link #event(ConsumerRecord)} copies the values of the records
	 * someone wants. A shared partition holds many topics' records, and a reader wants
	 * few of them: the node's event tail skips the records this node wrote (delivered at
	 * their acknowledgement) and those of topics nobody here follows, a pass behind
	 * memory those of other topics, about 40 for each of its own with 500 topics over 12
	 * partitions. A copy of each doubled what their fetches allocate.
	 * @param config the consumer's configuration
	 * @return the consumer
	 */
	static KafkaConsumer<String, ByteBuffer> consumer(Map<String, Object> config) {
		return new KafkaConsumer<>(config, new StringDeserializer(), new ByteBufferDeserializer());
	}

	static String sharedName(String prefix) {
		return prefix + "events";
	}

	String name(String topicId) {
		return this.prefix + "events." + topicId;
	}

	/**
	 * Tells the followers of one topic from the others in the tail: the Kafka topic of a
	 * dedicated topic, the id and incarnation of a shared one.
	 */
	String route(Topic topic) {
		return topic.shared() ? topic.id() + "@" + topic.incarnation() : name(topic.id());
	}

	String route(ConsumerRecord<String, ByteBuffer> record) {
		return route(record.topic(), record.key(), record.headers());
	}

	String route(ProducerRecord<String, byte[]> record) {
		return route(record.topic(), record.key(), record.headers());
	}

	private String route(String kafkaTopic, String key, Headers headers) {
		if (!kafkaTopic.equals(this.sharedName)) {
			return kafkaTopic;
		}
		Header incarnation = headers.lastHeader(INCARNATION_HEADER);
		return key + "@" + ((incarnation != null) ? new String(incarnation.value(), StandardCharsets.UTF_8) : "");
	}

	/**
	 * The Kafka partitions of a topic, by logical partition: the one shared partition of
	 * a shared topic, the partitions of its own topic otherwise.
	 */
	List<TopicPartition> partitions(Topic topic) {
		if (topic.shared()) {
			return List.of(new TopicPartition(this.sharedName, (topic.sharedPartition() != null)
					? topic.sharedPartition() : KafkaClients.partitionOf(topic.id(), this.sharedPartitions)));
		}
		return IntStream.range(0, topic.partitions())
			.mapToObj((partition) -> new TopicPartition(name(topic.id()), partition))
			.toList();
	}

	/** The partition of a record as its topic's cursors count it. */
	private int logical(TopicPartition partition) {
		return partition.topic().equals(this.sharedName) ? 0 : partition.partition();
	}

	@Override
	public Mono<Void> create(Topic topic) {
		if (topic.shared()) {
			return Mono.empty();
		}
		NewTopic events = this.clients.replication()
			.newTopic(name(topic.id()), topic.partitions(),
					Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
							TopicConfig.RETENTION_MS_CONFIG, Long.toString(topic.retention().toMillis())));
		// A topic deleted a moment ago may still be on its way out of Kafka: wait for it
		// a little.
		return call(() -> this.admin.createTopics(List.of(events)).all())
			.retryWhen(Retry.backoff(6, Duration.ofMillis(250))
				.filter(TopicExistsException.class::isInstance)
				.onRetryExhaustedThrow((spec, signal) -> new StreamgateException(ProblemType.CONFLICT,
						"The events of an earlier topic '" + topic.id() + "' are still being deleted; retry shortly")))
			.onErrorMap(InvalidTopicException.class, (ex) -> new StreamgateException(ProblemType.CONFLICT,
					"Kafka refused the events topic of '" + topic.id() + "': " + ex.getMessage()));
	}

	@Override
	public Mono<Void> update(Topic previous, Topic topic) {
		if (topic.shared()) {
			// Retention is applied on reads; the partitions of a shared topic never
			// change.
			return Mono.empty();
		}
		Mono<Void> retention = Mono.empty();
		if (!previous.retention().equals(topic.retention())) {
			AlterConfigOp op = new AlterConfigOp(
					new ConfigEntry(TopicConfig.RETENTION_MS_CONFIG, Long.toString(topic.retention().toMillis())),
					AlterConfigOp.OpType.SET);
			ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, name(topic.id()));
			retention = call(() -> this.admin.incrementalAlterConfigs(Map.of(resource, List.of(op))).all());
		}
		Mono<Void> partitions = Mono.empty();
		if (topic.partitions() > previous.partitions()) {
			partitions = call(() -> this.admin
				.createPartitions(Map.of(name(topic.id()), NewPartitions.increaseTo(topic.partitions())))
				.all());
		}
		return retention.then(partitions);
	}

	@Override
	public Mono<Void> limitBytes(Topic topic, long bytes) {
		if (topic.shared()) {
			return Mono.empty();
		}
		AlterConfigOp op = new AlterConfigOp(new ConfigEntry(TopicConfig.RETENTION_BYTES_CONFIG, Long.toString(bytes)),
				AlterConfigOp.OpType.SET);
		ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, name(topic.id()));
		return call(() -> this.admin.incrementalAlterConfigs(Map.of(resource, List.of(op))).all());
	}

	@Override
	public Mono<Void> delete(Topic topic) {
		this.owned.forget(topic);
		if (topic.shared()) {
			// No Kafka topic of its own: its records age out with the shared log.
			return Mono.empty();
		}
		return call(() -> this.admin.deleteTopics(List.of(name(topic.id()))).all())
			.onErrorResume(UnknownTopicOrPartitionException.class, (ex) -> Mono.empty());
	}

	@Override
	public Mono<EventLogStatus> status(Topic topic) {
		List<TopicPartition> partitions = partitions(topic);
		if (topic.shared()) {
			// Counting a topic's records in a shared partition would mean reading it: the
			// retained count is left out, the last event time is the newest event's.
			return end(topic).flatMap((end) -> newest(topic, (event) -> true)
				.map((event) -> new EventLogStatus(1, CursorFormat.of(topic).format(end), null, event.publishedAt()))
				.defaultIfEmpty(new EventLogStatus(1, CursorFormat.of(topic).format(end), null, null)));
		}
		return Mono
			.zip(offsets(partitions, OffsetSpec.earliest()), offsets(partitions, OffsetSpec.latest()),
					offsets(partitions, OffsetSpec.maxTimestamp()))
			.map((offsets) -> {
				long retained = partitions.stream()
					.mapToLong((p) -> offsets.getT2().get(p).offset() - offsets.getT1().get(p).offset())
					.sum();
				long last = offsets.getT3()
					.values()
					.stream()
					.mapToLong(ListOffsetsResultInfo::timestamp)
					.max()
					.orElse(-1);
				return new EventLogStatus(partitions.size(),
						CursorFormat.of(topic).format(cursor(partitions, offsets.getT2())), retained,
						(retained > 0 && last >= 0) ? Instant.ofEpochMilli(last) : null);
			});
	}

	@Override
	public Mono<List<EventPosition>> append(Topic topic, List<OutgoingEvent> events) {
		List<ProducerRecord<String, byte[]>> produced = records(topic, events);
		Mono<List<EventPosition>> positions;
		if (produced.size() == 1) {
			// No timer here: the producer answers a record it took at once within
			// delivery.timeout.ms, the write timeout, and PublicationSenders bounds one
			// that had to wait. A timer per publication was 1.6 % of fanout-200's CPU
			// samples.
			ProducerRecord<String, byte[]> record = produced.get(0);
			positions = this.senders.send(record).map((metadata) -> {
				this.written.accept(record, metadata);
				return List.of(position(topic, metadata));
			});
		}
		else {
			// One transaction, all of it visible or none; the writer runs one at a time.
			positions = this.transactionalWriter.sendTransactionally(produced)
				.map((written) -> written.stream().map((metadata) -> position(topic, metadata)).toList())
				.timeout(this.writeTimeout.plusSeconds(2));
		}
		return positions.onErrorMap(RecordTooLargeException.class, (ex) -> new StreamgateException(
				ProblemType.PAYLOAD_TOO_LARGE,
				"The publication is larger than Kafka takes in one record (the producer's max.request.size or the "
						+ "topic's max.message.bytes); lower streamgate.ingest.max-payload to match, or raise those",
				ex))
			.onErrorMap((ex) -> !(ex instanceof StreamgateException), StreamgateException::kafkaUnavailable);
	}

	@Override
	public Mono<Boolean> claim(Topic topic) {
		return this.owned.claim(topic);
	}

	/**
	 * Appends in one transaction of the topic's own writer. The event tail reads what it
	 * wrote once it commits, as it reads a batch.
	 */
	@Override
	public Mono<List<EventPosition>> appendAsOwner(Topic topic, List<OutgoingEvent> events) {
		return this.owned.append(topic, records(topic, events), (record, metadata) -> {
		})
			.map((written) -> written.stream().map((metadata) -> position(topic, metadata)).toList())
			.timeout(this.writeTimeout.plusSeconds(2))
			.onErrorMap((ex) -> !(ex instanceof StreamgateException) && !(ex instanceof WriterFencedException),
					StreamgateException::kafkaUnavailable);
	}

	/**
	 * The records of a topic's events: in its own Kafka topic, or keyed by its id (with
	 * its incarnation) in its partition of the shared log.
	 */
	List<ProducerRecord<String, byte[]>> records(Topic topic, List<OutgoingEvent> events) {
		TopicPartition shared = topic.shared() ? partitions(topic).get(0) : null;
		List<ProducerRecord<String, byte[]>> records = new ArrayList<>(events.size());
		for (OutgoingEvent event : events) {
			EventAttributes attributes = event.attributes();
			List<Header> headers = new ArrayList<>(4);
			headers.add(header(TYPE_HEADER, event.type().value()));
			if (attributes.type() != null) {
				headers.add(header(EVENT_TYPE_HEADER, attributes.type()));
			}
			attributes.headers().forEach((name, value) -> headers.add(header(name, value)));
			if (shared != null) {
				headers.add(header(INCARNATION_HEADER, topic.incarnation()));
				if (attributes.key() != null) {
					headers.add(header(KEY_HEADER, attributes.key()));
				}
				records
					.add(new ProducerRecord<>(shared.topic(), shared.partition(), topic.id(), event.data(), headers));
			}
			else {
				records.add(new ProducerRecord<>(name(topic.id()), null, attributes.key(), event.data(), headers));
			}
		}
		return records;
	}

	private static Header header(String name, String value) {
		return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
	}

	/** Where a record of a topic landed, as the topic's cursors count. */
	static EventPosition position(Topic topic, RecordMetadata metadata) {
		return new EventPosition(topic.shared() ? 0 : metadata.partition(), metadata.offset(), topic.partitions());
	}

	@Override
	public Flux<Event> read(Topic topic, Cursor after, Cursor until) {
		List<TopicPartition> wanted = partitions(topic).stream()
			.filter((p) -> until.last(logical(p)) > after.last(logical(p)))
			.toList();
		String route = route(topic);
		if (wanted.isEmpty()) {
			return Flux.empty();
		}
		if (topic.shared()) {
			// Its partition holds other topics' records: read in a pass shared with the
			// other reads of that partition.
			return this.scans.read(wanted.get(0), route, after.last(0) + 1, until.last(0));
		}
		// generate, not using: its cleanup never runs while a poll is in progress on
		// another thread (a KafkaConsumer is single-threaded); a cancelled read closes
		// its consumer without waiting for the broker, and one that read everything
		// gives it back.
		return Flux.<List<Event>, Read>generate(() -> {
			KafkaConsumer<String, ByteBuffer> consumer = this.readers.take();
			consumer.assign(wanted);
			wanted.forEach((p) -> consumer.seek(p, after.last(logical(p)) + 1));
			return new Read(consumer);
		}, (read, sink) -> {
			KafkaConsumer<String, ByteBuffer> consumer = read.consumer;
			try {
				boolean done = wanted.stream()
					.allMatch((p) -> consumer.position(p, this.writeTimeout) > until.last(logical(p)));
				if (done) {
					read.ended = true;
					sink.complete();
					return read;
				}
				List<Event> batch = new ArrayList<>();
				for (ConsumerRecord<String, ByteBuffer> record : consumer.poll(READ_POLL)) {
					if (record.offset() <= until.last(logical(new TopicPartition(record.topic(), record.partition())))
							&& route.equals(route(record))) {
						batch.add(event(record));
					}
				}
				sink.next(batch);
			}
			catch (InterruptException ex) {
				// A cancelled subscription interrupts this thread (subscribeOn disposes
				// its task), and then nothing more is asked of this read. An interrupt
				// meant for the task that ran on this pooled thread before must not end
				// the read early (a resume would skip the rest of its gap): an empty
				// batch, and the next poll.
				Thread.interrupted();
				sink.next(List.of());
			}
			return read;
		}, (read) -> {
			if (read == null) {
				// cancelled before the read began: no consumer was taken
				return;
			}
			if (read.ended) {
				this.readers.give(read.consumer);
			}
			else {
				this.readers.discard(read.consumer);
			}
		}).concatMapIterable((batch) -> batch).subscribeOn(Schedulers.boundedElastic());
	}

	@Override
	public Mono<Cursor> end(Topic topic) {
		List<TopicPartition> partitions = partitions(topic);
		return offsets(partitions, OffsetSpec.latest()).map((offsets) -> cursor(partitions, offsets));
	}

	@Override
	public Mono<Cursor> at(Topic topic, Instant time) {
		List<TopicPartition> partitions = partitions(topic);
		return Mono
			.zip(offsets(partitions, OffsetSpec.forTimestamp(time.toEpochMilli())),
					offsets(partitions, OffsetSpec.latest()))
			.map((offsets) -> {
				long[] last = new long[partitions.size()];
				for (TopicPartition partition : partitions) {
					long found = offsets.getT1().get(partition).offset();
					long next = (found >= 0) ? found : offsets.getT2().get(partition).offset();
					last[logical(partition)] = next - 1;
				}
				return Cursor.of(last);
			});
	}

	@Override
	public Mono<Cursor> start(Topic topic) {
		List<TopicPartition> partitions = partitions(topic);
		Mono<Cursor> earliest = offsets(partitions, OffsetSpec.earliest())
			.map((offsets) -> cursor(partitions, offsets));
		if (!topic.shared() || topic.retention().compareTo(this.sharedRetention) >= 0) {
			return earliest;
		}
		// The shared log may keep events longer than this topic asked for: what is older
		// than the topic's retention is gone as far as its subscribers can tell.
		return Mono.zip(earliest, at(topic, Instant.now().minus(topic.retention())))
			.map((both) -> both.getT1().max(both.getT2()));
	}

	Event event(ConsumerRecord<String, ByteBuffer> record) {
		return event(new TopicPartition(record.topic(), record.partition()), record.offset(), record.timestamp(),
				record.key(), Utils.toNullableArray(record.value()), record.headers());
	}

	/**
	 * The event of a record this node wrote, as a consumer will read it: Kafka keeps the
	 * record's key, value and headers as sent, and its timestamp as acknowledged.
	 */
	Event event(ProducerRecord<String, byte[]> record, RecordMetadata metadata) {
		return event(new TopicPartition(metadata.topic(), metadata.partition()), metadata.offset(),
				metadata.timestamp(), record.key(), record.value(), record.headers());
	}

	private Event event(TopicPartition partition, long offset, long timestamp, String recordKey, byte[] value,
			Headers headers) {
		EventType type = EventType.EVENT;
		String eventType = null;
		String key = partition.topic().equals(this.sharedName) ? null : recordKey;
		Map<String, String> others = null;
		for (Header header : headers) {
			String name = header.key();
			if (name.equals(TYPE_HEADER)) {
				type = EventType.fromValue(text(header));
			}
			else if (name.equals(EVENT_TYPE_HEADER)) {
				eventType = text(header);
			}
			else if (name.equals(KEY_HEADER)) {
				key = text(header);
			}
			else if (!name.startsWith(OWN_HEADERS)) {
				others = (others != null) ? others : new HashMap<>();
				others.put(name, text(header));
			}
		}
		EventAttributes attributes = (others != null) ? new EventAttributes(eventType, key, others)
				: EventAttributes.of(eventType, key);
		return new Event(logical(partition), offset, type, Instant.ofEpochMilli(timestamp), value, attributes);
	}

	private static String text(Header header) {
		return (header.value() != null) ? new String(header.value(), StandardCharsets.UTF_8) : "";
	}

	/** The cursor just before the given next offsets. */
	private Cursor cursor(List<TopicPartition> partitions, Map<TopicPartition, ListOffsetsResultInfo> next) {
		long[] last = new long[partitions.size()];
		for (TopicPartition partition : partitions) {
			last[logical(partition)] = next.get(partition).offset() - 1;
		}
		return Cursor.of(last);
	}

	private Mono<Map<TopicPartition, ListOffsetsResultInfo>> offsets(List<TopicPartition> partitions, OffsetSpec spec) {
		Map<TopicPartition, OffsetSpec> request = partitions.stream()
			.collect(Collectors.toMap(Function.identity(), (p) -> spec));
		// A topic created a moment ago may not be known to every broker yet.
		return call(() -> this.admin.listOffsets(request).all())
			.retryWhen(Retry.backoff(8, Duration.ofMillis(50))
				.maxBackoff(Duration.ofMillis(500))
				.filter(UnknownTopicOrPartitionException.class::isInstance)
				.onRetryExhaustedThrow((retry, signal) -> new StreamgateException(ProblemType.SERVICE_UNAVAILABLE,
						"The events of this topic are not available in Kafka now; retry shortly", signal.failure())
					.withRetryAfter(Duration.ofSeconds(1))));
	}

	static <T> Mono<T> call(java.util.function.Supplier<KafkaFuture<T>> call) {
		return Mono.fromCompletionStage(() -> call.get().toCompletionStage())
			.onErrorMap(CompletionException.class, Throwable::getCause)
			.onErrorMap(org.apache.kafka.common.errors.TimeoutException.class, StreamgateException::kafkaUnavailable);
	}

}
