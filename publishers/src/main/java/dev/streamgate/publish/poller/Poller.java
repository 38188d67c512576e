package dev.streamgate.publish.poller;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.json.JsonPointer;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;

import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.event.TopicMeters;
import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.PayloadSchemas;
import dev.streamgate.core.topic.PayloadType;
import dev.streamgate.core.topic.PollerStatus.LastPoll;
import dev.streamgate.core.topic.Publisher;
import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.trace.EventTracing;
import dev.streamgate.publish.poller.SourceClient.Fetch;
import dev.streamgate.publish.poller.SourceClient.Validators;

/**
 * Polls one topic's source while this node owns the topic: fetch, take the payload,
 * publish what changed, wait for the rest of the period, again. The definition is read
 * afresh for every poll, so a changed URL, period or header applies at the next one.
 * <p>
 * A failed poll becomes one {@code problem} event when the failure starts or changes
 * kind, not one per poll; polling goes on at the normal period and the next document is
 * published as usual.
 */
final class Poller {

	private static final Log logger = LogFactory.getLog(Poller.class);

	private static final JsonMapper PROBLEM_JSON = JsonMapper.builder().build();

	private final String topicId;

	private final TopicStore topics;

	private final Source client;

	private final EventPublisher publisher;

	private final MeterRegistry meters;

	private final Clock clock;

	private final Timer pollTimer;

	private final Counter bytesFetched;

	private final Counter changesPublished;

	private Disposable loop;

	private volatile LastPoll lastPoll;

	/** The validators of the last published answer, and what they are valid for. */
	private Validators validators = Validators.NONE;

	private Publisher.HttpPoller validatorsFor;

	/** The kind of the failure that was last published, null while polls succeed. */
	private SourceFailure.Kind failing;

	/** Event topics: the last published payload, to publish only changes. */
	private JsonValue lastEvent;

	private boolean lastEventLoaded;

	private final EventTracing tracing;

	Poller(String topicId, TopicStore topics, Source client, EventPublisher publisher, MeterRegistry meters,
			Clock clock) {
		this(topicId, topics, client, publisher, meters, clock, EventTracing.NONE);
	}

	Poller(String topicId, TopicStore topics, Source client, EventPublisher publisher, MeterRegistry meters,
			Clock clock, EventTracing tracing) {
		this.tracing = tracing;
		this.topicId = topicId;
		this.topics = topics;
		this.client = client;
		this.publisher = publisher;
		this.meters = meters;
		this.clock = clock;
		this.pollTimer = Timer.builder("streamgate.poller.poll.duration")
			.description("Time a poll takes, retries and publishing included")
			.tag(TopicMeters.TAG, topicId)
			.publishPercentileHistogram()
			.register(meters);
		this.bytesFetched = Counter.builder("streamgate.poller.fetched")
			.description("Bytes of source answers fetched")
			.baseUnit("bytes")
			.tag(TopicMeters.TAG, topicId)
			.register(meters);
		this.changesPublished = Counter.builder("streamgate.poller.changes")
			.description("Changed documents published")
			.tag(TopicMeters.TAG, topicId)
			.register(meters);
	}

	synchronized void start() {
		if (this.loop == null) {
			logger.info("Polling topic " + this.topicId);
			this.loop = Mono.defer(this::pollOnce).flatMap(this::waitForNextPoll).repeat().subscribe();
		}
	}

	synchronized void stop() {
		if (this.loop != null) {
			this.loop.dispose();
			this.loop = null;
			logger.info("Stopped polling topic " + this.topicId);
		}
	}

	LastPoll lastPoll() {
		return this.lastPoll;
	}

	private Mono<Long> waitForNextPoll(Instant started) {
		Duration period = this.topics.get(this.topicId)
			.map((stored) -> (stored.topic().publisher() instanceof Publisher.HttpPoller poller)
					? poller.pollingPeriod() : null)
			.orElse(Duration.ofSeconds(1));
		return Mono.delay(untilNextPoll(this.topicId, period, started, this.clock.instant()));
	}

	/**
	 * How long to wait before the next poll. Polls of a topic fall on its own phase of
	 * the period, spread over the period by its id: topics whose pollers started together
	 * (created together, or taken over together after a node left) would otherwise poll
	 * in the same instant every period and queue behind each other for the CPU. The first
	 * poll is not delayed; the one after it waits at least a period, and up to two
	 * periods once, to reach the topic's phase; then one period, as long as a poll takes
	 * less. A poll that started up to a tenth of the period (at most 1 s) after its phase
	 * (its timer fired late, the CPU was busy) keeps the phase.
	 * @param topicId the topic
	 * @param period the polling period
	 * @param started when the last poll started
	 * @param now now
	 * @return the wait, never negative
	 */
	static Duration untilNextPoll(String topicId, Duration period, Instant started, Instant now) {
		long periodMillis = Math.max(1, period.toMillis());
		long phase = new SplittableRandom(topicId.hashCode()).nextLong(periodMillis);
		long earliest = started.toEpochMilli() + periodMillis;
		long wait = Math.floorMod(phase - earliest, periodMillis);
		if (wait > periodMillis - lateness(periodMillis)) {
			// Started late for the phase it was meant for: keep it.
			wait -= periodMillis;
		}
		return Duration.ofMillis(Math.max(0, earliest + wait - now.toEpochMilli()));
	}

	/**
	 * How late a poll may start and still count as on its phase: a tenth of the period.
	 */
	private static long lateness(long periodMillis) {
		return Math.max(1, Math.min(periodMillis / 10, 1000));
	}

	/** One poll; never fails, it returns when it started. */
	private Mono<Instant> pollOnce() {
		Instant started = this.clock.instant();
		Topic topic = this.topics.get(this.topicId).map(StoredTopic::topic).orElse(null);
		if (topic == null || !(topic.publisher() instanceof Publisher.HttpPoller source)) {
			// deleted or changed to another publisher: the pollers stop this one
			return Mono.just(started);
		}
		Validators sent = Objects.equals(this.validatorsFor, source) ? this.validators : Validators.NONE;
		long startNanos = System.nanoTime();
		EventTracing.Span span = this.tracing.span("poll " + this.topicId, Map.of());
		return this.client.fetch(source, sent)
			.flatMap((fetch) -> fetch.notModified() ? Mono.just(Result.NOT_MODIFIED) : publish(topic, source, fetch))
			.doOnNext((result) -> recovered(topic))
			.onErrorResume(SourceFailure.class, (failure) -> failed(topic, source, failure))
			.onErrorResume((ex) -> {
				// Kafka did not take the publication: the validators are kept, so the
				// next
				// poll fetches the document again.
				logger.warn("Poll of " + this.topicId + " not published: " + ex.getMessage());
				return Mono.just(new Result("failed", "not published: " + ex.getMessage()));
			})
			.map((result) -> {
				Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
				this.pollTimer.record(took);
				Counter.builder("streamgate.poller.polls")
					.description("Polls by outcome")
					.tag(TopicMeters.TAG, this.topicId)
					.tag("outcome", result.outcome())
					.register(this.meters)
					.increment();
				this.lastPoll = new LastPoll(started, result.outcome(), took, result.detail());
				span.end("failed".equals(result.outcome()) ? result.detail() : null);
				return started;
			});
	}

	private Mono<Result> publish(Topic topic, Publisher.HttpPoller source, Fetch fetch) {
		this.bytesFetched.increment(fetch.size());
		// Parsing and diffing large documents is CPU work: keep it off the event loops.
		return Mono.fromCallable(() -> payload(topic, source, fetch))
			.subscribeOn(Schedulers.parallel())
			.flatMap((payload) -> (topic.payloadType() == PayloadType.SNAPSHOT)
					? this.publisher.publishDocumentAsOnlyWriter(topic, (JsonStructure) payload)
						.map(EventPublisher.Publication::changed)
					: publishEvent(topic, payload))
			.map((changed) -> {
				this.validators = fetch.validators();
				this.validatorsFor = source;
				if (changed) {
					this.changesPublished.increment();
				}
				Result result = changed ? Result.CHANGED : Result.UNCHANGED;
				return fetch.truncated() ? result.withDetail("the source has more than maxPages ("
						+ source.pagination().maxPages() + ") pages; the first ones were published") : result;
			});
	}

	private Mono<Boolean> publishEvent(Topic topic, JsonValue payload) {
		Mono<JsonValue> last = this.lastEventLoaded ? Mono.justOrEmpty(this.lastEvent)
				: this.publisher.lastEvent(topic).map((event) -> (JsonValue) JsonPatches.readStored(event.data()));
		return last.map((previous) -> !previous.equals(payload)).defaultIfEmpty(true).flatMap((changed) -> {
			this.lastEventLoaded = true;
			if (!changed) {
				return Mono.just(false);
			}
			return this.publisher.publish(topic, List.of(JsonPatches.write(payload))).map((publication) -> {
				this.lastEvent = payload;
				return true;
			});
		});
	}

	/** The part of the answer the topic publishes. */
	private static JsonValue payload(Topic topic, Publisher.HttpPoller source, Fetch fetch) {
		JsonValue answer = fetch.document();
		if (answer == null) {
			byte[] body = fetch.body();
			try {
				answer = JsonPatches.read(body);
			}
			catch (IllegalArgumentException ex) {
				throw new SourceFailure(SourceFailure.Kind.NOT_JSON, "The answer (" + body.length
						+ " bytes) is not valid JSON: " + ((ex.getMessage() != null) ? ex.getMessage() : "unreadable"));
			}
		}
		String pointer = source.payloadPointer();
		JsonValue payload = answer;
		if (!pointer.isEmpty()) {
			JsonPointer at = JsonPatches.json().createPointer(pointer);
			if (!(answer instanceof JsonStructure structure) || !at.containsValue(structure)) {
				throw new SourceFailure(SourceFailure.Kind.NO_PAYLOAD,
						"The answer has no value at payloadPointer " + pointer);
			}
			payload = at.getValue(structure);
		}
		if (topic.payloadType() == PayloadType.SNAPSHOT && !(payload instanceof JsonStructure)) {
			throw new SourceFailure(SourceFailure.Kind.NOT_A_DOCUMENT,
					"The payload is a " + payload.getValueType().name().toLowerCase() + ", not an object or array");
		}
		if (topic.schema() != null) {
			// Not published: the last good document stays the topic's.
			List<StreamgateException.FieldError> errors = PayloadSchemas.validate(topic.schema(),
					JsonPatches.write(payload));
			if (!errors.isEmpty()) {
				throw new SourceFailure(SourceFailure.Kind.SCHEMA,
						"The payload does not match the topic's schema: " + PayloadSchemas.describe(errors));
			}
		}
		return payload;
	}

	private void recovered(Topic topic) {
		if (this.failing != null) {
			logger.info("Source of " + topic.id() + " answers again after " + this.failing.slug());
			this.failing = null;
		}
	}

	private Mono<Result> failed(Topic topic, Publisher.HttpPoller source, SourceFailure failure) {
		Result result = new Result("failed", failure.getMessage());
		if (failure.kind() == this.failing) {
			return Mono.just(result);
		}
		logger.warn("Poll of " + topic.id() + " failed after " + failure.attempts() + " attempt(s): "
				+ failure.getMessage());
		byte[] problem = PROBLEM_JSON.writeValueAsBytes(failure.problem(topic.id(), source.url()));
		return this.publisher.publishError(topic, problem).map((publication) -> {
			this.failing = failure.kind();
			return result;
		});
	}

	/**
	 * How a poll ended.
	 *
	 * @param outcome the outcome, a metric tag
	 * @param detail what failed, or {@code null}
	 */
	private record Result(String outcome, String detail) {

		static final Result CHANGED = new Result("changed", null);

		static final Result UNCHANGED = new Result("unchanged", null);

		static final Result NOT_MODIFIED = new Result("not-modified", null);

		Result withDetail(String newDetail) {
			return new Result(this.outcome, newDetail);
		}

	}

}
