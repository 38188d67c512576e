package dev.streamgate.subscribe.webhook;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

import dev.streamgate.core.egress.EgressGuard;
import dev.streamgate.core.egress.EgressProperties;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.MemoryBudget;
import dev.streamgate.core.event.OutgoingEvent;
import dev.streamgate.core.event.SnapshotDocuments;
import dev.streamgate.core.storage.Leases;
import dev.streamgate.core.support.SchedulerClock;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.trace.EventTracing;
import dev.streamgate.core.webhook.Attempt;
import dev.streamgate.core.webhook.DeliveryState;
import dev.streamgate.core.webhook.Webhook;
import dev.streamgate.storage.memory.MemoryAttemptLog;
import dev.streamgate.storage.memory.MemoryDeliveryStates;
import dev.streamgate.storage.memory.MemoryEventLog;
import dev.streamgate.storage.memory.MemoryTopicStore;
import dev.streamgate.storage.memory.MemoryWebhookStore;
import dev.streamgate.subscribe.follow.FollowProperties;
import dev.streamgate.subscribe.follow.TopicFollowers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A webhook's {@link Dispatcher} without Kafka or HTTP, in virtual time: the retry
 * schedule of hours runs in milliseconds, and each attempt is seen with the time it was
 * made. Events come from a memory event log (which is also the node's event tail); the
 * endpoint answers what each test scripts.
 */
class DispatcherTests {

	private final VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();

	private final Clock clock = new SchedulerClock(this.time);

	private final Topic topic = new Topic("orders", null, null, null, null, null, null, null, null, null, null, null)
		.withDefaults();

	private final MemoryEventLog log = new MemoryEventLog(this.clock);

	private final MemoryTopicStore topics = new MemoryTopicStore();

	private final MemoryWebhookStore webhooks = new MemoryWebhookStore();

	private final ReadingStates states = new ReadingStates();

	private final MemoryAttemptLog attempts = new MemoryAttemptLog();

	private final DeliveryCommits commits = new DeliveryCommits(this.states);

	private final ScriptedEndpoint endpoint = new ScriptedEndpoint();

	private final Webhook webhook = new Webhook("wh_1", "orders",
			new Webhook.HttpTarget("http://127.0.0.1:9/hook", null), SubscriptionMode.EVENT, Map.of(), "whsec_test",
			null, Webhook.Status.ACTIVE, null, 0, "-1", false, Instant.EPOCH, Instant.EPOCH, null, null, null, null);

	private TopicFeeds feeds;

	private Dispatcher dispatcher;

	@AfterEach
	void stop() {
		if (this.dispatcher != null) {
			this.dispatcher.stop(false);
		}
		this.commits.stop();
		VirtualTimeScheduler.reset();
	}

	private Dispatcher start(List<Duration> retrySchedule, Duration disableAfter) {
		Dispatcher.Services services = services(retrySchedule, disableAfter);
		this.dispatcher = new Dispatcher(this.webhook, this.topic, DeliveryState.start(this.webhook),
				this.feeds.acquire(this.topic), services);
		this.dispatcher.start();
		return this.dispatcher;
	}

	private Dispatcher.Services services(List<Duration> retrySchedule, Duration disableAfter) {
		this.topics.save(this.topic).block();
		this.webhooks.save(this.webhook).block();
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		WebhookProperties properties = new WebhookProperties(retrySchedule, Duration.ofSeconds(15), disableAfter, 10,
				10, 200);
		SnapshotDocuments documents = new SnapshotDocuments(this.log, null);
		TopicFollowers followers = new TopicFollowers(this.log, this.log, documents, this.topics,
				new FollowProperties(100, DataSize.ofMegabytes(1), Duration.ofSeconds(30)), new MemoryBudget(1 << 20),
				meters);
		this.feeds = new TopicFeeds(followers);
		this.commits.start();
		return new Dispatcher.Services(this.endpoint, documents, this.states, this.commits, this.webhooks,
				this.attempts, properties, new WebhookMetrics(meters, this.webhooks), this.clock, EventTracing.NONE);
	}

	private void publish(int... numbers) {
		List<OutgoingEvent> events = new ArrayList<>();
		for (int n : numbers) {
			events.add(new OutgoingEvent(EventType.EVENT, ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8)));
		}
		this.log.append(this.topic, events).block();
	}

	private List<String> outcomes() {
		return this.attempts.all().stream().map((a) -> a.attempt() + ":" + a.outcome()).toList();
	}

	@Test
	void aFailingEndpointIsRetriedOnTheScheduleThenTheEventsAreDeliveredInOrder() {
		start(List.of(Duration.ofSeconds(5), Duration.ofMinutes(5), Duration.ofMinutes(30)), Duration.ofDays(5));
		this.endpoint.answer(503, 503);
		publish(0, 1, 2);
		assertThat(outcomes()).containsExactly("1:retrying");
		// ±20% jitter: the second attempt comes 4 to 6 s after the first.
		this.time.advanceTimeBy(Duration.ofMillis(3_999));
		assertThat(this.attempts.all()).hasSize(1);
		this.time.advanceTimeBy(Duration.ofMillis(2_001));
		assertThat(outcomes()).containsExactly("1:retrying", "2:retrying");
		this.time.advanceTimeBy(Duration.ofMinutes(3));
		assertThat(this.attempts.all()).hasSize(2);
		this.time.advanceTimeBy(Duration.ofMinutes(3));
		assertThat(outcomes()).containsExactly("1:retrying", "2:retrying", "3:delivered", "1:delivered", "1:delivered");
		assertThat(this.endpoint.bodies()).containsExactly("{\"n\":0}", "{\"n\":0}", "{\"n\":0}", "{\"n\":1}",
				"{\"n\":2}");
		// The same message id on every attempt of an event, a new one per event.
		List<String> ids = this.attempts.all().stream().map(Attempt::eventId).toList();
		assertThat(ids.subList(0, 3)).containsOnly(ids.get(0));
		assertThat(ids.stream().distinct()).hasSize(3);
		// The cursor is committed (at most once a second) after the last delivery.
		this.time.advanceTimeBy(Duration.ofSeconds(2));
		DeliveryState committed = this.states.get("wh_1").orElseThrow();
		assertThat(committed.delivered()).isEqualTo(3);
		assertThat(committed.failingSince()).isNull();
		assertThat(committed.cursor()).isEqualTo("2");
	}

	@Test
	void anEventStillFailingAfterTheLastRetryIsGivenUpAndTheNextIsDelivered() {
		start(List.of(Duration.ofSeconds(5), Duration.ofSeconds(5)), Duration.ofDays(5));
		this.endpoint.answer(500, 500, 500);
		publish(0, 1);
		this.time.advanceTimeBy(Duration.ofSeconds(20));
		assertThat(outcomes()).containsExactly("1:retrying", "2:retrying", "3:failed", "1:delivered");
		this.time.advanceTimeBy(Duration.ofSeconds(2));
		DeliveryState committed = this.states.get("wh_1").orElseThrow();
		assertThat(committed.failed()).isEqualTo(1);
		assertThat(committed.delivered()).isEqualTo(1);
		assertThat(committed.cursor()).isEqualTo("1");
	}

	@Test
	void retryAfterOfA429IsWaitedForInsteadOfTheSchedule() {
		start(List.of(Duration.ofSeconds(5)), Duration.ofDays(5));
		this.endpoint.answer(new WebhookSender.Result(429, 1, null, Duration.ofMinutes(2), null));
		publish(0);
		this.time.advanceTimeBy(Duration.ofSeconds(119));
		assertThat(outcomes()).containsExactly("1:retrying");
		this.time.advanceTimeBy(Duration.ofSeconds(1));
		assertThat(outcomes()).containsExactly("1:retrying", "2:delivered");
	}

	@Test
	void a410DisablesTheWebhookAndItsCursorStaysBeforeTheEvent() {
		start(List.of(Duration.ofSeconds(5)), Duration.ofDays(5));
		this.endpoint.answer(410);
		publish(0, 1);
		this.time.advanceTimeBy(Duration.ofHours(1));
		assertThat(outcomes()).containsExactly("1:disabled");
		Webhook saved = this.webhooks.get("wh_1").orElseThrow();
		assertThat(saved.status()).isEqualTo(Webhook.Status.DISABLED);
		assertThat(saved.disabledReason()).contains("410");
		this.time.advanceTimeBy(Duration.ofSeconds(2));
		assertThat(this.states.get("wh_1").orElseThrow().cursor()).isEqualTo("-1");
	}

	@Test
	void failingLongerThanDisableAfterDisablesTheWebhook() {
		start(List.of(Duration.ofHours(1), Duration.ofHours(1), Duration.ofHours(1)), Duration.ofMinutes(90));
		this.endpoint.answer(503, 503, 503, 503);
		publish(0);
		// Attempts at 0, about 1 h and about 2 h: past 90 minutes of failing, the third
		// failure disables the webhook instead of waiting for a fourth.
		this.time.advanceTimeBy(Duration.ofHours(5));
		assertThat(outcomes()).containsExactly("1:retrying", "2:retrying", "3:disabled");
		assertThat(this.webhooks.get("wh_1").orElseThrow().disabledReason()).contains("disable-after");
	}

	/** The endpoint: answers the scripted statuses in order, then 200. */
	@Test
	void aNodeStillReadingTheCommittedStatesStartsNoDispatcherThenResumesWhereTheStateSays() {
		// Another node delivered events 0 to 2 and committed; this node has not read
		// that commit yet.
		this.states.save("wh_1", new DeliveryState(0, "2", true, null, 3, 0)).block();
		this.states.caughtUp = false;
		publish(0, 1, 2, 3, 4);
		Dispatcher.Services services = services(List.of(Duration.ofSeconds(5)), Duration.ofDays(5));
		Dispatchers dispatchers = new Dispatchers(this.topics, new OwnEverything(), this.feeds, services);
		dispatchers.start();
		try {
			this.time.advanceTimeBy(Duration.ofSeconds(30));
			assertThat(this.endpoint.bodies()).isEmpty();
			this.states.caughtUp = true;
			this.time.advanceTimeBy(Duration.ofSeconds(5));
			assertThat(this.endpoint.bodies()).containsExactly("{\"n\":3}", "{\"n\":4}");
		}
		finally {
			dispatchers.stop();
		}
	}

	/** States as a node reads them from Kafka: none seen until it has caught up. */
	private static final class ReadingStates extends MemoryDeliveryStates {

		private volatile boolean caughtUp = true;

		@Override
		public boolean isCaughtUp() {
			return this.caughtUp;
		}

		@Override
		public Optional<DeliveryState> get(String webhookId) {
			return this.caughtUp ? super.get(webhookId) : Optional.empty();
		}

	}

	/** The only node: it holds every lease. */
	private static final class OwnEverything implements Leases {

		@Override
		public Membership join(String group, Listener listener) {
			return new Membership() {

				@Override
				public boolean owns(String key) {
					return true;
				}

				@Override
				public void close() {
				}

			};
		}

	}

	private static final class ScriptedEndpoint extends WebhookSender {

		private final Deque<WebhookSender.Result> answers = new ArrayDeque<>();

		private final List<String> bodies = new ArrayList<>();

		ScriptedEndpoint() {
			super(new EgressGuard(new EgressProperties(List.of(), true)),
					new WebhookProperties(List.of(Duration.ofSeconds(1)), Duration.ofSeconds(1), Duration.ofDays(1), 1,
							1, 1),
					"test", Clock.systemUTC(), null, null);
		}

		void answer(int... statuses) {
			for (int status : statuses) {
				this.answers.add(new WebhookSender.Result(status, 1, null, null, null));
			}
		}

		void answer(WebhookSender.Result result) {
			this.answers.add(result);
		}

		synchronized List<String> bodies() {
			return List.copyOf(this.bodies);
		}

		@Override
		public synchronized Mono<Result> send(Webhook webhook, Delivery delivery) {
			String body = new String(delivery.body(), StandardCharsets.UTF_8);
			int data = body.indexOf("\"data\":");
			this.bodies.add(body.substring(data + 7, body.lastIndexOf('}')));
			Result next = this.answers.poll();
			return Mono.just((next != null) ? next : new Result(200, 1, null, null, null));
		}

	}

}
