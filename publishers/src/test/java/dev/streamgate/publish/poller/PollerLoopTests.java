package dev.streamgate.publish.poller;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.SnapshotDocuments;
import dev.streamgate.core.support.SchedulerClock;
import dev.streamgate.core.topic.PayloadType;
import dev.streamgate.core.topic.Publisher;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.publish.poller.SourceClient.Fetch;
import dev.streamgate.publish.poller.SourceClient.Validators;
import dev.streamgate.storage.memory.MemoryEventLog;
import dev.streamgate.storage.memory.MemorySnapshotStore;
import dev.streamgate.storage.memory.MemoryTopicStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The polling loop of one topic without Kafka or HTTP, in virtual time: a scripted
 * source, a memory event log, a memory topic store. Minutes of polling run in
 * milliseconds, and each fetch is seen with the time it was made.
 */
class PollerLoopTests {

	private static final Duration PERIOD = Duration.ofSeconds(1);

	private final VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();

	private final Clock clock = new SchedulerClock(this.time);

	private final MemoryEventLog log = new MemoryEventLog(this.clock);

	private final MemoryTopicStore topics = new MemoryTopicStore();

	private final ScriptedSource source = new ScriptedSource();

	private Poller poller;

	@AfterEach
	void stop() {
		if (this.poller != null) {
			this.poller.stop();
		}
		VirtualTimeScheduler.reset();
	}

	private Topic topic(Duration period) {
		Publisher publisher = new Publisher.HttpPoller(URI.create("http://source.test/board"), period, null, null, null,
				null, null, null);
		return new Topic("board", null, PayloadType.SNAPSHOT, publisher, null, null, null, null, null, null, null, null)
			.withDefaults();
	}

	private void start() {
		Topic topic = topic(PERIOD);
		this.topics.save(topic).block();
		MemorySnapshotStore snapshots = new MemorySnapshotStore();
		EventPublisher publisher = new EventPublisher(this.log, snapshots, new SnapshotDocuments(this.log, snapshots),
				100, Duration.ofSeconds(30));
		this.poller = new Poller("board", this.topics, this.source, publisher, new SimpleMeterRegistry(), this.clock);
		this.poller.start();
	}

	private List<String> published() {
		return this.log.all(this.topics.get("board").orElseThrow().topic())
			.stream()
			.map((event) -> event.type().value() + " " + new String(event.data(), StandardCharsets.UTF_8))
			.toList();
	}

	@Test
	void publishesTheFirstDocumentThenOnlyWhatChanged() {
		this.source.answer("{\"v\":1}", "{\"v\":1}", null, "{\"v\":2}");
		start();
		this.time.advanceTimeBy(Duration.ofSeconds(10));
		assertThat(published()).containsExactly("snapshot {\"v\":1}",
				"patch [{\"op\":\"replace\",\"path\":\"/v\",\"value\":2}]");
		// The answer's validators go back with the next poll once its document is
		// published.
		assertThat(this.source.validatorsSent.get(1)).isEqualTo(new Validators("\"e1\"", null));
	}

	@Test
	void pollsAtMostOnceAPeriodAndAtLeastOnceEveryTwo() {
		start();
		this.time.advanceTimeBy(Duration.ofSeconds(60));
		List<Long> at = this.source.fetchedAt;
		assertThat(at.get(0)).isZero();
		assertThat(at).hasSizeBetween(59, 61);
		for (int i = 1; i < at.size(); i++) {
			assertThat(at.get(i) - at.get(i - 1)).as("between polls %d and %d", i - 1, i)
				.isBetween(PERIOD.toMillis(), 2 * PERIOD.toMillis());
		}
	}

	@Test
	void aFailingSourceIsOneProblemPerKindOfFailureAndPollingGoesOn() {
		this.source.answer("{\"v\":1}");
		this.source.fail(SourceFailure.Kind.STATUS, SourceFailure.Kind.STATUS, SourceFailure.Kind.STATUS,
				SourceFailure.Kind.TIMEOUT);
		this.source.answer("{\"v\":2}");
		start();
		this.time.advanceTimeBy(Duration.ofSeconds(15));
		List<Event> events = this.log.all(this.topics.get("board").orElseThrow().topic());
		assertThat(events).extracting(Event::type)
			.containsExactly(EventType.SNAPSHOT, EventType.PROBLEM, EventType.PROBLEM, EventType.PATCH);
		assertThat(new String(events.get(1).data(), StandardCharsets.UTF_8)).contains("source-status");
		assertThat(new String(events.get(2).data(), StandardCharsets.UTF_8)).contains("source-timeout");
		assertThat(this.poller.lastPoll().outcome()).isIn("unchanged", "not-modified");
	}

	@Test
	void aNewPeriodAppliesFromTheNextPollAndStopEndsPolling() {
		start();
		this.time.advanceTimeBy(Duration.ofSeconds(5));
		this.topics.save(topic(Duration.ofSeconds(10))).block();
		int before = this.source.fetchedAt.size();
		this.time.advanceTimeBy(Duration.ofSeconds(60));
		// One poll at the old period at most, then one every 10 to 20 s.
		assertThat(this.source.fetchedAt.size() - before).isBetween(3, 8);
		this.poller.stop();
		int stopped = this.source.fetchedAt.size();
		this.time.advanceTimeBy(Duration.ofMinutes(5));
		assertThat(this.source.fetchedAt).hasSize(stopped);
	}

	/**
	 * The source: answers the scripted documents and failures in order (each document
	 * with the ETag {@code "e<n>"}), then 304 Not Modified.
	 */
	private final class ScriptedSource implements Source {

		private final Deque<Object> answers = new ArrayDeque<>();

		private final List<Long> fetchedAt = new ArrayList<>();

		private final List<Validators> validatorsSent = new ArrayList<>();

		private int tags;

		void answer(String... documents) {
			for (String document : documents) {
				this.answers.add((document != null) ? document : Fetch.NOT_MODIFIED);
			}
		}

		void fail(SourceFailure.Kind... kinds) {
			for (SourceFailure.Kind kind : kinds) {
				this.answers.add(kind);
			}
		}

		@Override
		public Mono<Fetch> fetch(Publisher.HttpPoller publisher, Validators validators) {
			this.fetchedAt.add(PollerLoopTests.this.time.now(TimeUnit.MILLISECONDS));
			this.validatorsSent.add(validators);
			Object next = this.answers.poll();
			if (next instanceof SourceFailure.Kind kind) {
				return Mono.error(new SourceFailure(kind, "scripted " + kind));
			}
			if (next instanceof String document) {
				return Mono.just(new Fetch(document.getBytes(StandardCharsets.UTF_8),
						new Validators("\"e" + (++this.tags) + "\"", null)));
			}
			return Mono.just(Fetch.NOT_MODIFIED);
		}

	}

}
