package dev.streamgate.subscribe.webhook;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

import jakarta.json.JsonArray;
import jakarta.json.JsonValue;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import dev.streamgate.core.cloudevents.CloudEvents;
import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.CursorFormat;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.SnapshotDocument;
import dev.streamgate.core.event.SnapshotDocuments;
import dev.streamgate.core.filter.Selection;
import dev.streamgate.core.patch.DocumentView;
import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.storage.AttemptLog;
import dev.streamgate.core.storage.DeliveryStates;
import dev.streamgate.core.storage.WebhookStore;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.trace.EventTracing;
import dev.streamgate.core.webhook.Attempt;
import dev.streamgate.core.webhook.DeliveryState;
import dev.streamgate.core.webhook.Webhook;

/**
 * Delivers one webhook's events, one at a time in topic order, each retried on the
 * schedule until it succeeds or is given up. Waiting never blocks a thread, so a slow or
 * failing webhook delays only itself. The delivery state is committed after the
 * deliveries it counts, with the node's other dispatchers' states
 * ({@link DeliveryCommits}): at most once a second, and when the dispatcher stops.
 */
final class Dispatcher {

	private static final Log logger = LogFactory.getLog(Dispatcher.class);

	private final Webhook webhook;

	private final Topic topic;

	private final CursorFormat cursors;

	private final TopicFeed feed;

	private final Selection selection;

	/** The part of the document delivered, or {@code null} for all of it. */
	private final DocumentView view;

	/** The part as the endpoint has it, {@code null} while unknown (views only). */
	private JsonValue part;

	/** The trace context of the event being delivered. */
	private Map<String, String> eventTrace = Map.of();

	private final Services services;

	private volatile DeliveryState state;

	private volatile boolean stopped;

	private SnapshotDocument document;

	private Disposable loop;

	Dispatcher(Webhook webhook, Topic topic, DeliveryState state, TopicFeed feed, Services services) {
		this.webhook = webhook;
		this.topic = topic;
		this.cursors = CursorFormat.of(topic);
		this.state = state;
		this.feed = feed;
		this.services = services;
		this.selection = webhook.selection();
		this.view = this.selection.view();
	}

	Webhook webhook() {
		return this.webhook;
	}

	TopicFeed feed() {
		return this.feed;
	}

	void start() {
		this.loop = Mono.defer(this::step)
			.retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofSeconds(1))
				.maxBackoff(Duration.ofSeconds(30))
				.doBeforeRetry((signal) -> logger.warn("Webhook " + this.webhook.id() + " cannot read topic "
						+ this.topic.id() + " now, retrying: " + signal.failure().getMessage())))
			.repeat(() -> !this.stopped)
			.subscribe();
	}

	/**
	 * Stops delivering; the state reached so far is committed.
	 * @param commit whether to commit it (not for a deleted webhook)
	 * @return the state reached
	 */
	DeliveryState stop(boolean commit) {
		this.stopped = true;
		if (this.loop != null) {
			this.loop.dispose();
		}
		if (commit) {
			this.services.commits().offerLast(this.webhook.id(), this.state);
		}
		else {
			this.services.commits().forget(this.webhook.id());
		}
		return this.state;
	}

	/** Handed over from the delivery loop and from {@link #stop}, which may race. */
	private void commit(DeliveryState reached) {
		this.services.commits().offer(this.webhook.id(), reached);
	}

	private Mono<Void> step() {
		if (this.stopped) {
			return Mono.empty();
		}
		Cursor cursor = Cursor.parse(this.state.cursor(), this.topic.partitions());
		boolean needsDocument = switch (this.webhook.mode()) {
			case SNAPSHOT_ONLY -> this.document == null;
			case SNAPSHOT_PATCH -> !this.state.snapshotSent();
			case EVENT -> false;
		};
		// A view follows the document in every mode: what changed is its part.
		needsDocument |= this.view != null && this.document == null;
		if (needsDocument) {
			return this.services.documents().load(this.topic, cursor).doOnNext((loaded) -> {
				this.document = loaded;
				this.part = (this.view != null && loaded.document() != null) ? this.view.select(loaded.document())
						: null;
			}).flatMap((loaded) -> this.state.snapshotSent() ? Mono.empty() : openingSnapshot(cursor, loaded));
		}
		return this.feed.next(cursor, this.services.properties().batch())
			.flatMap((events) -> Flux.fromIterable(events).concatMap(this::handle).then());
	}

	/** A new epoch of a snapshot mode starts with the document as it stands. */
	private Mono<Void> openingSnapshot(Cursor cursor, SnapshotDocument loaded) {
		this.eventTrace = Map.of();
		if (loaded.document() == null) {
			this.state = new DeliveryState(this.state.epoch(), this.state.cursor(), true, this.state.failingSince(),
					this.state.delivered(), this.state.failed());
			return Mono.empty();
		}
		String id = this.cursors.format(cursor);
		byte[] data = JsonPatches.write((this.view != null) ? this.part : loaded.document());
		Instant now = this.services.clock().instant();
		String type = EventType.SNAPSHOT.value();
		Delivery delivery = delivery(messageId(id) + "_snapshot", type, id, null, now, data,
				() -> Delivery.envelope(type, null, this.topic.id(), id, now, data));
		return deliver(delivery, cursor.toString());
	}

	private Mono<Void> handle(Event event) {
		if (this.stopped) {
			return Mono.empty();
		}
		Cursor after = Cursor.parse(this.state.cursor(), this.topic.partitions())
			.after(event.partition(), event.offset());
		this.eventTrace = event.attributes().headers();
		if (!this.selection.selectsAll() && !this.selection.accepts(event, () -> this.feed.filterVariables(event))) {
			// Not asked for: passed, the cursor moves on (committed with the next
			// commit).
			this.state = this.state.passed(after.toString());
			commit(this.state);
			return Mono.empty();
		}
		String id = this.cursors.format(after);
		if (this.view != null && event.type() != EventType.PROBLEM) {
			return handleInView(event, after, id);
		}
		byte[] data = event.data();
		String type = event.type().value();
		if (this.webhook.mode() == SubscriptionMode.SNAPSHOT_ONLY && this.view == null) {
			this.document = this.services.documents().apply(this.topic, this.document, event);
			if (event.type() != EventType.PROBLEM) {
				if (this.document.document() == null) {
					// The document is unknown until the next snapshot: nothing to send.
					this.state = this.state.gaveUp(after.toString());
					return Mono.empty();
				}
				type = EventType.SNAPSHOT.value();
				data = JsonPatches.write(this.document.document());
			}
		}
		String deliveredType = type;
		byte[] deliveredData = data;
		Supplier<byte[]> envelope = (this.webhook.mode() == SubscriptionMode.SNAPSHOT_ONLY)
				? () -> Delivery.envelope(deliveredType, null, this.topic.id(), id, event.publishedAt(), deliveredData)
				: () -> this.feed.envelope(event, deliveredType, id, () -> Delivery.envelope(deliveredType,
						event.attributes().type(), this.topic.id(), id, event.publishedAt(), event.data()));
		return deliver(delivery(messageId(id), type, id, event, event.publishedAt(), data, envelope), after.toString());
	}

	/**
	 * An event of a view's topic: nothing when the view's part stayed as it was (the
	 * cursor moves on), otherwise the patch from the part the endpoint has to the new one
	 * (snapshot-patch), or the new part whole (snapshot-only, and when the part was
	 * unknown).
	 */
	private Mono<Void> handleInView(Event event, Cursor after, String id) {
		this.document = this.services.documents().apply(this.topic, this.document, event);
		JsonValue before = this.part;
		this.part = (this.document.document() != null) ? this.view.select(this.document.document()) : null;
		JsonArray patch = (before != null && this.part != null) ? DocumentView.change(before, this.part) : null;
		if (this.part == null || (before != null && patch == null)) {
			this.state = this.state.passed(after.toString());
			commit(this.state);
			return Mono.empty();
		}
		boolean whole = before == null || this.webhook.mode() == SubscriptionMode.SNAPSHOT_ONLY;
		String type = (whole ? EventType.SNAPSHOT : EventType.PATCH).value();
		byte[] data = JsonPatches.write(whole ? this.part : patch);
		return deliver(
				delivery(messageId(id), type, id, event, event.publishedAt(), data,
						() -> Delivery.envelope(type, null, this.topic.id(), id, event.publishedAt(), data)),
				after.toString());
	}

	/**
	 * One delivery: streamgate's envelope, or a CloudEvent when the webhook asked for
	 * them (the same id and data, the event's attributes).
	 */
	private Delivery delivery(String messageId, String type, String cursor, Event event, Instant publishedAt,
			byte[] data, Supplier<byte[]> envelope) {
		String mode = this.webhook.cloudEvents();
		if (Webhook.STRUCTURED.equals(mode)) {
			return new Delivery(messageId, type, publishedAt,
					CloudEvents.writeStructured(this.topic.id(), cursor, type, event, data), CloudEvents.STRUCTURED,
					Map.of());
		}
		if (Webhook.BINARY.equals(mode)) {
			Map<String, String> headers = new LinkedHashMap<>(
					CloudEvents.writeBinaryHeaders(this.topic.id(), cursor, type, event, data));
			String contentType = headers.remove("content-type");
			return new Delivery(messageId, type, publishedAt, data,
					(contentType != null) ? contentType : "application/json", headers);
		}
		return new Delivery(messageId, type, publishedAt, envelope.get());
	}

	/**
	 * The same on every attempt and after a restart; a replay delivers under new ids, and
	 * a topic created again under its new incarnation (part of the cursor).
	 */
	private String messageId(String cursor) {
		return "msg_" + this.topic.id() + "_" + cursor
				+ ((this.webhook.epoch() > 0) ? "_r" + this.webhook.epoch() : "");
	}

	private Mono<Void> deliver(Delivery delivery, String cursorAfter) {
		return attempt(delivery, 1).flatMap((outcome) -> {
			switch (outcome) {
				case DELIVERED -> this.state = this.state.delivered(cursorAfter);
				case FAILED -> this.state = this.state.gaveUp(cursorAfter);
				default -> {
					// Disabled: the cursor stays before this event, for when it is
					// enabled
					// again.
					this.stopped = true;
					commit(this.state);
					return Mono.empty();
				}
			}
			commit(this.state);
			return Mono.empty();
		});
	}

	private Mono<Outcome> attempt(Delivery untraced, int number) {
		Instant at = this.services.clock().instant();
		// Each attempt is a span in the trace the event was published in.
		EventTracing.Span span = this.services.tracing().span("deliver " + this.topic.id(), this.eventTrace);
		Delivery delivery = untraced.withHeaders(span.headers());
		return this.services.sender()
			.send(this.webhook, delivery)
			.doOnNext((result) -> span.end(result.error()))
			.flatMap((result) -> {
				if (result.isSuccess()) {
					this.services.metrics()
						.delivered(this.topic.id(),
								Duration.between(delivery.publishedAt(), this.services.clock().instant()));
					return record(delivery, number, at, result, Outcome.DELIVERED);
				}
				Instant now = this.services.clock().instant();
				boolean wasFailing = this.state.failingSince() != null;
				this.state = this.state.failing(now);
				if (!wasFailing) {
					// The cursor stays; committed now, the topic's status (and the
					// console) shows the webhook failing while it retries, not once the
					// event is done.
					commit(this.state);
				}
				if (result.statusCode() != null && result.statusCode() == 410) {
					return disable("the endpoint answered 410 Gone")
						.then(record(delivery, number, at, result, Outcome.DISABLED));
				}
				Instant failingSince = later(this.state.failingSince(), this.webhook.updatedAt());
				Duration disableAfter = this.services.properties().disableAfter();
				if (!failingSince.plus(disableAfter).isAfter(now)) {
					return disable("no successful delivery since " + failingSince
							+ " (streamgate.webhook.disable-after " + disableAfter + ")")
						.then(record(delivery, number, at, result, Outcome.DISABLED));
				}
				List<Duration> schedule = this.services.properties().retrySchedule();
				if (number > schedule.size()) {
					return record(delivery, number, at, result, Outcome.FAILED);
				}
				Duration delay = delay(schedule.get(number - 1), result);
				return record(delivery, number, at, result, Outcome.RETRYING).then(Mono.delay(delay)
					.doOnSubscribe((s) -> this.services.metrics().retryWaiting())
					.doFinally((s) -> this.services.metrics().retryDone())
					.then(Mono.defer(() -> attempt(delivery, number + 1))));
			});
	}

	/**
	 * The schedule's delay with ±20% jitter, or the endpoint's Retry-After on 429/503.
	 */
	private static Duration delay(Duration scheduled, WebhookSender.Result result) {
		Integer status = result.statusCode();
		if (result.retryAfter() != null && status != null && (status == 429 || status == 503)) {
			return result.retryAfter();
		}
		double factor = 0.8 + 0.4 * ThreadLocalRandom.current().nextDouble();
		return Duration.ofNanos((long) (scheduled.toNanos() * factor));
	}

	private Mono<Outcome> record(Delivery delivery, int number, Instant at, WebhookSender.Result result,
			Outcome outcome) {
		String value = outcome.name().toLowerCase(java.util.Locale.ROOT);
		this.services.metrics().attempt(this.topic.id(), value);
		Attempt attempt = new Attempt(this.webhook.id(), at, delivery.messageId(), delivery.type(), number,
				result.statusCode(), result.durationMs(), result.error(), value, result.responseBody());
		// The attempts log is for people: a delivery never waits for it.
		this.services.attempts()
			.record(attempt)
			.subscribe(null, (ex) -> logger.debug("Attempt of " + this.webhook.id() + " not logged: " + ex));
		return Mono.just(outcome);
	}

	private Mono<Void> disable(String reason) {
		logger.warn("Disabling webhook " + this.webhook.id() + " of topic " + this.topic.id() + ": " + reason);
		return Mono.justOrEmpty(this.services.webhooks().get(this.webhook.id()))
			.filter(Webhook::isActive)
			.flatMap((current) -> this.services.webhooks()
				.save(current.withStatus(Webhook.Status.DISABLED, reason, this.services.clock().instant())))
			.then()
			.onErrorResume((ex) -> {
				logger.warn("Cannot disable webhook " + this.webhook.id() + ": " + ex.getMessage());
				return Mono.empty();
			});
	}

	private static Instant later(Instant a, Instant b) {
		if (a == null) {
			return b;
		}
		return (b == null || a.isAfter(b)) ? a : b;
	}

	enum Outcome {

		DELIVERED, RETRYING, FAILED, DISABLED

	}

	/**
	 * What every dispatcher of a node uses.
	 *
	 * @param sender sends attempts
	 * @param documents rebuilds documents of snapshot topics
	 * @param states the committed delivery states
	 * @param commits commits the states the dispatchers reach
	 * @param webhooks the registrations
	 * @param attempts the attempts log
	 * @param properties the delivery settings
	 * @param metrics the metrics
	 * @param clock the clock
	 */
	record Services(WebhookSender sender, SnapshotDocuments documents, DeliveryStates states, DeliveryCommits commits,
			WebhookStore webhooks, AttemptLog attempts, WebhookProperties properties, WebhookMetrics metrics,
			Clock clock, EventTracing tracing) {
	}

}
