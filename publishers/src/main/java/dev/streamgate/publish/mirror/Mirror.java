package dev.streamgate.publish.mirror;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.streamgate.core.event.EventAttributes;
import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.OutgoingEvent;
import dev.streamgate.core.lease.LeasedTopics;
import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.storage.MirrorException;
import dev.streamgate.core.storage.MirrorSource;
import dev.streamgate.core.storage.MirrorWriter;
import dev.streamgate.core.storage.Mirroring;
import dev.streamgate.core.storage.SourceRecord;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.KafkaEndpoint;
import dev.streamgate.core.topic.PayloadType;
import dev.streamgate.core.topic.PollerStatus.LastPoll;
import dev.streamgate.core.topic.Publisher;
import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.trace.EventTracing;

/**
 * Mirrors the source topic of one {@code kafka} publisher, on a thread of its own (a
 * Kafka consumer is single-threaded and its poll waits): each batch of source records is
 * one write of the events it makes together with the source offsets after it, so a new
 * owner continues exactly after the last batch written. Event topics get one event per
 * record with its key, headers, timestamp, partition and offset; snapshot topics take
 * each value as the whole new document. A record that is neither is a {@code problem}
 * event, counted, and the mirror goes on.
 */
final class Mirror implements LeasedTopics.Worker {

	private static final Log logger = LogFactory.getLog(Mirror.class);

	private static final Duration POLL = Duration.ofMillis(500);

	private static final Duration LAG_CHECK = Duration.ofSeconds(10);

	private static final Duration MIN_BACKOFF = Duration.ofSeconds(1);

	private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

	/** How long stopping waits for a write in progress. */
	private static final Duration STOP_WAIT = Duration.ofSeconds(20);

	private final String topicId;

	private final TopicStore topics;

	private final Mirroring mirroring;

	private final EventPublisher publisher;

	private final Clock clock;

	private final Counter invalid;

	private final Counter mirrored;

	private final Thread thread;

	private volatile boolean running = true;

	private volatile LastPoll lastPoll;

	/** The failure last published as a problem, so that one episode is one problem. */
	private MirrorException.Kind failing;

	private long lag = -1;

	private long invalidRecords;

	Mirror(String topicId, TopicStore topics, Mirroring mirroring, EventPublisher publisher, MeterRegistry meters,
			Clock clock) {
		this.topicId = topicId;
		this.topics = topics;
		this.mirroring = mirroring;
		this.publisher = publisher;
		this.clock = clock;
		this.invalid = Counter.builder("streamgate.mirror.records.invalid")
			.description("Source records of kafka publishers that were not JSON (or no document)")
			.register(meters);
		this.mirrored = Counter.builder("streamgate.mirror.records")
			.description("Source records of kafka publishers mirrored")
			.register(meters);
		this.thread = new Thread(this::run, "mirror-" + topicId);
		this.thread.setDaemon(true);
	}

	void start() {
		logger.info("Mirroring topic " + this.topicId);
		this.thread.start();
	}

	@Override
	public void stop() {
		this.running = false;
		try {
			this.thread.join(STOP_WAIT.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		// A write still running is fenced by the next owner's writer.
		this.publisher.forget(this.topicId);
		logger.info("Stopped mirroring topic " + this.topicId);
	}

	LastPoll lastPoll() {
		return this.lastPoll;
	}

	private void run() {
		Duration backoff = MIN_BACKOFF;
		while (this.running) {
			Optional<Topic> topic = this.topics.get(this.topicId)
				.map(StoredTopic::topic)
				.filter((t) -> t.publisher() instanceof Publisher.Kafka);
			if (topic.isEmpty()) {
				return;
			}
			Instant started = this.clock.instant();
			try {
				mirror(topic.get());
				backoff = MIN_BACKOFF;
			}
			catch (MirrorException ex) {
				if (ex.fenced()) {
					// The lease moved and this node has yet to hear of it (then it stops
					// this
					// mirror soon), or two nodes each believe they hold it until the
					// group
					// settles: either way, a new writer after a pause reads where the
					// other
					// one got.
					logger.info(ex.getMessage() + "; this node tries again in " + backoff.toSeconds() + " s");
				}
				else {
					failed(topic.get(), started, ex);
				}
				backoff = pause(backoff);
			}
			catch (RuntimeException ex) {
				logger.error("Mirror of " + this.topicId + " failed", ex);
				failed(topic.get(), started, new MirrorException(MirrorException.Kind.WRITE, String.valueOf(ex)));
				backoff = pause(backoff);
			}
		}
	}

	/** One session: a writer, a source, and batches until the topic changes or stops. */
	private void mirror(Topic topic) {
		// What another node published is read again from the log.
		this.publisher.forget(this.topicId);
		try (MirrorWriter writer = this.mirroring.writer(topic);
				MirrorSource source = this.mirroring.source(topic, writer.committed())) {
			if (writer.committed().isEmpty()) {
				// Where a new mirror starts is written down before anything is mirrored.
				writer.append(List.of(), source.positions());
			}
			long lagCheckedAt = 0;
			while (this.running && unchanged(topic)) {
				Instant started = this.clock.instant();
				List<SourceRecord> records = source.poll(POLL);
				if (!records.isEmpty()) {
					write(topic, writer, records);
					this.mirrored.increment(records.size());
				}
				// Asked again every LAG_CHECK, and at once when a poll finds nothing
				// while
				// the last answer said records were behind: a mirror that has caught up
				// says so within a poll, not up to LAG_CHECK later.
				boolean caughtUp = records.isEmpty() && this.lag > 0;
				if (caughtUp || System.nanoTime() - lagCheckedAt > LAG_CHECK.toNanos()) {
					this.lag = source.lag();
					lagCheckedAt = System.nanoTime();
				}
				recovered();
				this.lastPoll = new LastPoll(started, records.isEmpty() ? "unchanged" : "changed",
						Duration.between(started, this.clock.instant()), status(writer.committed()));
			}
		}
	}

	/**
	 * Whether the topic is still the one this mirror started for, with the same source.
	 */
	private boolean unchanged(Topic topic) {
		return this.topics.get(this.topicId)
			.map(StoredTopic::topic)
			.filter((now) -> now.createdAt().equals(topic.createdAt()))
			.filter((now) -> Objects.equals(now.publisher(), topic.publisher()))
			.isPresent();
	}

	private void write(Topic topic, MirrorWriter writer, List<SourceRecord> records) {
		Map<Integer, Long> next = new HashMap<>(writer.committed());
		if (topic.payloadType() == PayloadType.EVENT) {
			List<OutgoingEvent> events = new ArrayList<>(records.size());
			for (SourceRecord record : records) {
				events.add(event(topic, record));
				next.put(record.partition(), record.offset() + 1);
			}
			writer.append(events, next);
			return;
		}
		// Snapshot topics: runs of documents are diffed together; a record that is no
		// document is a problem between them.
		List<JsonStructure> documents = new ArrayList<>();
		for (SourceRecord record : records) {
			Optional<JsonStructure> document = document(record);
			if (document.isPresent()) {
				documents.add(document.get());
				next.put(record.partition(), record.offset() + 1);
				continue;
			}
			publish(topic, writer, documents, next);
			documents.clear();
			next.put(record.partition(), record.offset() + 1);
			writer.append(List.of(invalid(topic, record, documentProblem(record))), next);
		}
		publish(topic, writer, documents, next);
	}

	private void publish(Topic topic, MirrorWriter writer, List<JsonStructure> documents, Map<Integer, Long> next) {
		if (documents.isEmpty()) {
			return;
		}
		Map<Integer, Long> after = Map.copyOf(next);
		boolean changed = this.publisher
			.publishDocumentsAsOnlyWriter(topic, List.copyOf(documents),
					(events) -> Mono.fromCallable(() -> writer.append(events, after))
						.subscribeOn(Schedulers.boundedElastic()))
			.blockOptional()
			.map(EventPublisher.Publication::changed)
			.orElse(false);
		if (!changed) {
			// Nothing to append, but the source offsets move on all the same.
			writer.append(List.of(), after);
		}
	}

	/**
	 * An event topic's event: the record's value with what Kafka knows of it, or a
	 * problem when the value is not JSON.
	 */
	private OutgoingEvent event(Topic topic, SourceRecord record) {
		JsonValue value;
		try {
			value = (record.value() != null) ? JsonPatches.read(record.value()) : JsonValue.NULL;
		}
		catch (IllegalArgumentException ex) {
			return invalid(topic, record,
					new Problem("source-not-json", "A source record is not JSON",
							"Record " + record.partition() + "/" + record.offset() + " of Kafka topic "
									+ topic.kafkaSource().topic() + " is not JSON: " + ex.getMessage()));
		}
		JsonObjectBuilder data = JsonPatches.json().createObjectBuilder();
		data.add("key", (record.key() != null) ? JsonPatches.json().createValue(record.key()) : JsonValue.NULL);
		data.add("value", value);
		data.add("headers", headers(record));
		data.add("timestamp", record.timestamp().toString());
		data.add("partition", record.partition());
		data.add("offset", record.offset());
		return new OutgoingEvent(EventType.EVENT, JsonPatches.write(data.build()), traceOf(record));
	}

	/** The trace a source record was produced in (W3C headers) goes on with its event. */
	private static EventAttributes traceOf(SourceRecord record) {
		Map<String, String> trace = new LinkedHashMap<>();
		for (Map.Entry<String, String> header : record.headers()) {
			if ((EventTracing.TRACEPARENT.equals(header.getKey()) || EventTracing.TRACESTATE.equals(header.getKey()))
					&& header.getValue() != null) {
				trace.put(header.getKey(), header.getValue());
			}
		}
		return trace.isEmpty() ? EventAttributes.NONE : new EventAttributes(null, null, trace);
	}

	/** The headers by name, a name that comes more than once with its values in order. */
	private static JsonValue headers(SourceRecord record) {
		Map<String, List<String>> byName = new LinkedHashMap<>();
		record.headers()
			.forEach((header) -> byName.computeIfAbsent(header.getKey(), (name) -> new ArrayList<>())
				.add(header.getValue()));
		JsonObjectBuilder headers = JsonPatches.json().createObjectBuilder();
		byName.forEach((name, values) -> {
			if (values.size() == 1) {
				headers.add(name, text(values.get(0)));
			}
			else {
				JsonArrayBuilder array = JsonPatches.json().createArrayBuilder();
				values.forEach((value) -> array.add(text(value)));
				headers.add(name, array);
			}
		});
		return headers.build();
	}

	private static JsonValue text(String value) {
		return (value != null) ? JsonPatches.json().createValue(value) : JsonValue.NULL;
	}

	private static Optional<JsonStructure> document(SourceRecord record) {
		if (record.value() == null) {
			return Optional.empty();
		}
		try {
			return (JsonPatches.read(record.value()) instanceof JsonStructure structure) ? Optional.of(structure)
					: Optional.empty();
		}
		catch (IllegalArgumentException ex) {
			return Optional.empty();
		}
	}

	private static Problem documentProblem(SourceRecord record) {
		String where = "Record " + record.partition() + "/" + record.offset();
		if (record.value() == null) {
			return new Problem("source-not-a-document", "A snapshot topic needs a JSON object or array",
					where + " has no value");
		}
		try {
			JsonValue value = JsonPatches.read(record.value());
			return new Problem("source-not-a-document", "A snapshot topic needs a JSON object or array",
					where + " is a JSON " + value.getValueType().name().toLowerCase());
		}
		catch (IllegalArgumentException ex) {
			return new Problem("source-not-json", "A source record is not JSON",
					where + " is not JSON: " + ex.getMessage());
		}
	}

	/** The problem event of a record that cannot be mirrored, counted. */
	private OutgoingEvent invalid(Topic topic, SourceRecord record, Problem problem) {
		this.invalid.increment();
		this.invalidRecords++;
		logger.warn("Mirror of " + this.topicId + ": " + problem.detail());
		JsonObjectBuilder json = problem.json(topic);
		json.add("partition", record.partition());
		json.add("offset", record.offset());
		json.add("key", (record.key() != null) ? JsonPatches.json().createValue(record.key()) : JsonValue.NULL);
		return new OutgoingEvent(EventType.PROBLEM, JsonPatches.write(json.build()));
	}

	/**
	 * A failed session: its status, and one problem event per episode of the same failure
	 * (a source down for an hour is one problem, not one per retry).
	 */
	private void failed(Topic topic, Instant started, MirrorException ex) {
		logger.warn("Mirror of " + this.topicId + " failed: " + ex.getMessage());
		this.lastPoll = new LastPoll(started, "failed", Duration.between(started, this.clock.instant()),
				ex.getMessage());
		if (ex.kind() == this.failing || ex.kind() == MirrorException.Kind.WRITE) {
			// A write that failed cannot write its problem either.
			return;
		}
		Problem problem = switch (ex.kind()) {
			case AUTH -> new Problem("source-auth", "The source refused the credentials", ex.getMessage());
			case MISSING -> new Problem("source-missing", "The source topic does not exist", ex.getMessage());
			default -> new Problem("source-unreachable", "The source could not be reached", ex.getMessage());
		};
		this.publisher.publishError(topic, JsonPatches.write(problem.json(topic).build()))
			.doOnSuccess((publication) -> this.failing = ex.kind())
			.onErrorResume((error) -> Mono.empty())
			.block();
	}

	private void recovered() {
		if (this.failing != null) {
			logger.info("Mirror of " + this.topicId + " reads its source again");
			this.failing = null;
		}
	}

	private String status(Map<Integer, Long> committed) {
		StringBuilder status = new StringBuilder("next to mirror: ");
		status.append(committed.entrySet()
			.stream()
			.sorted(Map.Entry.comparingByKey())
			.map((entry) -> "partition " + entry.getKey() + " offset " + entry.getValue())
			.reduce((a, b) -> a + ", " + b)
			.orElse("nothing"));
		if (this.lag >= 0) {
			status.append("; ").append(this.lag).append(" behind");
		}
		if (this.invalidRecords > 0) {
			status.append("; ").append(this.invalidRecords).append(" records were not mirrored (problem events)");
		}
		return status.toString();
	}

	private Duration pause(Duration backoff) {
		long until = System.nanoTime() + backoff.toNanos();
		while (this.running && System.nanoTime() < until) {
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return backoff;
			}
		}
		Duration doubled = backoff.multipliedBy(2);
		return (doubled.compareTo(MAX_BACKOFF) > 0) ? MAX_BACKOFF : doubled;
	}

	/** A problem event's fields. */
	private record Problem(String slug, String title, String detail) {

		JsonObjectBuilder json(Topic topic) {
			KafkaEndpoint source = topic.kafkaSource();
			return JsonPatches.json()
				.createObjectBuilder()
				.add("type", "https://streamgate.dev/problems/" + this.slug)
				.add("title", this.title)
				.add("status", 502)
				.add("detail", this.detail)
				.add("topic", topic.id())
				.add("source", (source.bootstrapServers() != null)
						? "kafka://" + source.bootstrapServers() + "/" + source.topic() : "kafka:" + source.topic());
		}

	}

}
