package dev.streamgate.subscribe.follow;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.CursorFormat;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.MemoryBudget;
import dev.streamgate.core.event.OutgoingEvent;
import dev.streamgate.core.filter.Selection;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.trace.EventTracing;
import dev.streamgate.storage.memory.MemoryEventLog;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TopicFollower} without Kafka: events are handed to it as the node's event tail
 * does, and read back from a memory event log.
 */
class TopicFollowerTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final Topic topic = new Topic("feed", null, null, null, null, null, null, null, null, null, null, null)
		.withDefaults();

	private final List<String> slow = new ArrayList<>();

	private final TopicFollower feed = new TopicFollower(this.topic, null, null,
			new FollowProperties(100, DataSize.ofMegabytes(1), Duration.ofSeconds(30)), new MemoryBudget(1 << 20),
			this.slow::add);

	@Test
	void aReaderThatCaughtUpIsWokenByTheNextEvent() {
		this.feed.onStart(Cursor.of(4));
		StepVerifier.create(this.feed.next(Cursor.of(4), 10))
			.then(() -> this.feed.onEvent(event(5)))
			.assertNext((events) -> assertThat(events).isEmpty())
			.expectComplete()
			.verify(Duration.ofSeconds(2));
		StepVerifier.create(this.feed.next(Cursor.of(4), 10))
			.assertNext((events) -> assertThat(events).extracting(Event::offset).containsExactly(5L))
			.expectComplete()
			.verify(Duration.ofSeconds(2));
	}

	@Test
	void aWaiterRegisteringAfterAnEventArrivedDoesNotSleepUntilTheRecheck() {
		// The reader saw no event after offset 4, then the tail added offset 5 before the
		// reader's wait was registered: the wait must end at once, not after the 10-s
		// recheck (seen as deliveries 10-20 s late under load).
		this.feed.onStart(Cursor.of(4));
		this.feed.onEvent(event(5));
		StepVerifier.create(this.feed.waitForMore(Cursor.of(4))).expectComplete().verify(Duration.ofSeconds(2));
	}

	@Test
	void aWaiterWithNothingNewWaitsForAnEvent() {
		this.feed.onStart(Cursor.of(4));
		StepVerifier.create(this.feed.waitForMore(Cursor.of(4)))
			.expectSubscription()
			.expectNoEvent(Duration.ofMillis(200))
			.then(() -> this.feed.onEvent(event(5)))
			.expectComplete()
			.verify(Duration.ofSeconds(2));
	}

	@Test
	void aWaiterWokenByNothingLooksAgainAtTheSecondRecheckAndSetsNoTimerOfItsOwn() {
		this.feed.onStart(Cursor.of(4));
		StepVerifier.withVirtualTime(() -> this.feed.waitForMore(Cursor.of(4)))
			.expectSubscription()
			// No timer of its own: an hour passes and nothing wakes it.
			.expectNoEvent(Duration.ofHours(1))
			// It began to wait after the last recheck: the next one leaves it waiting...
			.then(this.feed::recheck)
			.expectNoEvent(Duration.ofSeconds(1))
			// ...and the one after wakes it.
			.then(this.feed::recheck)
			.expectComplete()
			.verify(Duration.ofSeconds(2));
	}

	@Test
	void anEventWakesTheWaitersOfBothGenerations() {
		this.feed.onStart(Cursor.of(4));
		CompletableFuture<Void> longer = this.feed.waitForMore(Cursor.of(4)).toFuture();
		this.feed.recheck();
		CompletableFuture<Void> newer = this.feed.waitForMore(Cursor.of(4)).toFuture();
		assertThat(longer).isNotDone();
		this.feed.onEvent(event(5));
		assertThat(longer).succeedsWithin(Duration.ofSeconds(2));
		assertThat(newer).succeedsWithin(Duration.ofSeconds(2));
	}

	@Test
	void aCancelledWaiterIsDroppedFromEitherGeneration() {
		this.feed.onStart(Cursor.of(4));
		Disposable older = this.feed.waitForMore(Cursor.of(4)).subscribe();
		this.feed.recheck();
		Disposable newer = this.feed.waitForMore(Cursor.of(4)).subscribe();
		assertThat(this.feed.waiters()).isEqualTo(2);
		older.dispose();
		assertThat(this.feed.waiters()).isEqualTo(1);
		newer.dispose();
		assertThat(this.feed.waiters()).isZero();
	}

	@Test
	void readersBehindGetTheRecentEventsInOrderUpToTheirLimit() {
		this.feed.onStart(Cursor.of(4));
		for (long offset = 5; offset <= 9; offset++) {
			this.feed.onEvent(event(offset));
		}
		StepVerifier.create(this.feed.next(Cursor.of(5), 3))
			.assertNext((events) -> assertThat(events).extracting(Event::offset).containsExactly(6L, 7L, 8L))
			.expectComplete()
			.verify(Duration.ofSeconds(2));
	}

	@Test
	void aSubscriberJoiningBetweenTwoEventsGetsTheReplayThenTheLiveEventsNothingTwice() {
		MemoryEventLog log = new MemoryEventLog(Clock.systemUTC());
		List<Event> stored = append(log, 4);
		TopicFollower follower = follower(log, 100);
		follower.onStart(Cursor.of(stored.get(0).offset()));
		follower.onEvent(stored.get(1));
		follower.onEvent(stored.get(2));
		Flux<Followed> stream = follower
			.open("test", Buffers.events(16), SubscriptionMode.EVENT, Selection.ALL,
					Resume.after(Cursor.of(stored.get(1).offset())), Runnable::run)
			.block(TIMEOUT);
		StepVerifier.create(stream.map(TopicFollowerTests::offset))
			.expectNext(stored.get(2).offset())
			.then(() -> follower.onEvent(stored.get(3)))
			.expectNext(stored.get(3).offset())
			.thenCancel()
			.verify(TIMEOUT);
		assertThat(follower.count("test")).isZero();
	}

	@Test
	void everySubscriberGetsTheSameInstanceSoEachChannelEncodesAnEventOnce() {
		this.feed.onStart(Cursor.of(4));
		List<Followed> first = new ArrayList<>();
		List<Followed> second = new ArrayList<>();
		Flux<Followed> one = this.feed
			.open("a", Buffers.events(16), SubscriptionMode.EVENT, Selection.ALL, Resume.LIVE, Runnable::run)
			.block(TIMEOUT);
		Flux<Followed> two = this.feed
			.open("b", Buffers.events(16), SubscriptionMode.EVENT, Selection.ALL, Resume.LIVE, Runnable::run)
			.block(TIMEOUT);
		one.subscribe(first::add);
		two.subscribe(second::add);
		this.feed.onEvent(event(5));
		assertThat(first).hasSize(1);
		assertThat(second).hasSize(1);
		assertThat(first.get(0)).isSameAs(second.get(0));
		assertThat(first.get(0).id()).isEqualTo(CursorFormat.of(this.topic).format(Cursor.of(5)));
		assertThat(this.feed.count("a")).isEqualTo(1);
	}

	@Test
	void theRecentEventsKeepACopyWithoutWhatTheLiveFanOutEncoded() {
		MemoryEventLog log = new MemoryEventLog(Clock.systemUTC());
		List<Event> stored = append(log, 2);
		TopicFollower follower = follower(log, 100);
		Cursor before = Cursor.of(stored.get(0).offset());
		follower.onStart(before);
		List<Followed> live = new ArrayList<>();
		follower.open("live", Buffers.events(16), SubscriptionMode.EVENT, Selection.ALL, Resume.LIVE, Runnable::run)
			.block(TIMEOUT)
			.subscribe(live::add);
		follower.onEvent(stored.get(1));
		assertThat(live).hasSize(1);
		Flux<Followed> resumed = follower
			.open("resumed", Buffers.events(16), SubscriptionMode.EVENT, Selection.ALL, Resume.after(before),
					Runnable::run)
			.block(TIMEOUT);
		StepVerifier.create(resumed).assertNext((kept) -> {
			// Not the instance that carries the live subscribers' encodings ...
			assertThat(kept).isNotSameAs(live.get(0));
			// ... but the same event at the same position, its data not copied.
			assertThat(kept.id()).isEqualTo(live.get(0).id());
			assertThat(kept.after()).isEqualTo(live.get(0).after());
			assertThat(kept.event()).isSameAs(live.get(0).event());
			assertThat(kept.data()).isSameAs(live.get(0).data());
			assertThat(kept.publishedAt()).isEqualTo(live.get(0).publishedAt());
		}).thenCancel().verify(TIMEOUT);
	}

	@Test
	void heartbeatsGoOutInSlicesOfTheIntervalOneToEverySubscriber() {
		HeartbeatWheel wheel = new HeartbeatWheel();
		TopicFollower other = follower(
				new Topic("other", null, null, null, null, null, null, null, null, null, null, null).withDefaults(),
				wheel);
		TopicFollower feed = follower(this.topic, wheel);
		feed.onStart(Cursor.of(4));
		other.onStart(Cursor.of(4));
		// Two slices' worth of subscribers, on two topics sharing the node's wheel.
		int[] beats = new int[2 * HeartbeatWheel.SLICES];
		List<Disposable> streams = new ArrayList<>();
		for (int i = 0; i < beats.length; i++) {
			int subscriber = i;
			streams.add(((i % 2 == 0) ? feed : other)
				.open("sse", Buffers.events(16), SubscriptionMode.EVENT, Selection.ALL, Resume.LIVE, Runnable::run)
				.block(TIMEOUT)
				.filter(Followed::isHeartbeat)
				.subscribe((heartbeat) -> beats[subscriber]++));
		}
		List<Integer> perSlice = new ArrayList<>();
		for (int slice = 0; slice < HeartbeatWheel.SLICES; slice++) {
			int before = IntStream.of(beats).sum();
			wheel.beat(slice);
			perSlice.add(IntStream.of(beats).sum() - before);
		}
		assertThat(beats).containsOnly(1);
		// Subscribers take the slices in turn: two in each.
		assertThat(perSlice).containsOnly(2);
		// A stream that ended leaves the wheel: the next round skips it.
		streams.get(0).dispose();
		assertThat(wheel.size()).isEqualTo(beats.length - 1);
		for (int slice = 0; slice < HeartbeatWheel.SLICES; slice++) {
			wheel.beat(slice);
		}
		assertThat(beats[0]).isEqualTo(1);
		assertThat(IntStream.of(beats).skip(1)).containsOnly(2);
		assertThat(this.slow).isEmpty();
	}

	@Test
	void aSubscriberWhoseHeartbeatsPileUpIsCutOffAndLeavesTheWheel() {
		HeartbeatWheel wheel = new HeartbeatWheel();
		TopicFollower feed = follower(this.topic, wheel);
		feed.onStart(Cursor.of(0));
		Flux<Followed> stalled = feed
			.open("sse", Buffers.events(8), SubscriptionMode.EVENT, Selection.ALL, Resume.LIVE, Runnable::run)
			.block(TIMEOUT);
		StepVerifier.create(stalled, 0).then(() -> {
			// Nine rounds of the interval: the ninth heartbeat finds the queue of 8 full.
			for (int round = 0; round < 9; round++) {
				for (int slice = 0; slice < HeartbeatWheel.SLICES; slice++) {
					wheel.beat(slice);
				}
			}
		}).thenRequest(100).expectError(SlowSubscriberException.class).verify(TIMEOUT);
		assertThat(this.slow).containsExactly("sse");
		assertThat(feed.count("sse")).isZero();
		assertThat(wheel.size()).isZero();
		// Cut off once: later rounds find it gone.
		for (int slice = 0; slice < HeartbeatWheel.SLICES; slice++) {
			wheel.beat(slice);
		}
		assertThat(this.slow).containsExactly("sse");
	}

	@Test
	void aSubscriberThatReadsNothingIsCutOffWhileAnotherKeepsUp() {
		this.feed.onStart(Cursor.of(0));
		Flux<Followed> stalled = this.feed
			.open("test", Buffers.events(8), SubscriptionMode.EVENT, Selection.ALL, Resume.LIVE, Runnable::run)
			.block(TIMEOUT);
		Flux<Followed> reading = this.feed
			.open("test", Buffers.events(8), SubscriptionMode.EVENT, Selection.ALL, Resume.LIVE, Runnable::run)
			.block(TIMEOUT);
		List<Long> read = new ArrayList<>();
		reading.subscribe((followed) -> read.add(offset(followed)));
		StepVerifier.create(stalled, 0).then(() -> {
			for (long offset = 1; offset <= 20; offset++) {
				this.feed.onEvent(event(offset));
			}
		}).thenRequest(100).expectError(SlowSubscriberException.class).verify(TIMEOUT);
		assertThat(read).hasSize(20);
		assertThat(this.slow).containsExactly("test");
	}

	@Test
	void aSubscriberBehindTheRecentEventsReadsTheGapFromTheLogThenGoesLive() {
		MemoryEventLog log = new MemoryEventLog(Clock.systemUTC());
		List<Event> stored = append(log, 4);
		TopicFollower follower = follower(log, 2);
		follower.onStart(Cursor.of(stored.get(0).offset()));
		stored.subList(1, 4).forEach(follower::onEvent);
		Flux<Followed> stream = follower
			.open("test", Buffers.events(16), SubscriptionMode.EVENT, Selection.ALL,
					Resume.after(Cursor.of(stored.get(0).offset())), Runnable::run)
			.block(TIMEOUT);
		StepVerifier.create(stream.map(TopicFollowerTests::offset))
			.expectNext(stored.get(1).offset(), stored.get(2).offset(), stored.get(3).offset())
			.then(() -> follower.onEvent(event(stored.get(3).offset() + 1)))
			.expectNext(stored.get(3).offset() + 1)
			.thenCancel()
			.verify(TIMEOUT);
	}

	@Test
	void aReaderBehindTheRecentEventsTakesAboutAMebibyteOfItsGapAtATimeAndAllOfItInTurn() {
		MemoryEventLog log = new MemoryEventLog(Clock.systemUTC());
		String pad = "p".repeat(300_000);
		for (int i = 0; i < 10; i++) {
			log.append(this.topic,
					List.of(new OutgoingEvent(EventType.EVENT,
							("{\"n\":" + i + ",\"pad\":\"" + pad + "\"}").getBytes(StandardCharsets.UTF_8))))
				.block(TIMEOUT);
		}
		List<Event> stored = log.all(this.topic);
		TopicFollower follower = follower(log, 2);
		follower.onStart(Cursor.of(stored.get(0).offset()));
		stored.subList(1, 10).forEach(follower::onEvent);
		List<Long> read = new ArrayList<>();
		Cursor cursor = Cursor.of(stored.get(0).offset());
		while (read.size() < 9) {
			List<Event> batch = follower.next(cursor, 200).block(TIMEOUT);
			// Behind the two recent events: read from the log, four of 300 KB reach the
			// mebibyte; from memory, the two kept.
			assertThat(batch).hasSizeBetween(1, 4);
			batch.forEach((event) -> read.add(event.offset()));
			Event last = batch.get(batch.size() - 1);
			cursor = cursor.after(last.partition(), last.offset());
		}
		assertThat(read).containsExactlyElementsOf(stored.subList(1, 10).stream().map(Event::offset).toList());
	}

	private TopicFollower follower(MemoryEventLog log, int recentEvents) {
		return new TopicFollower(this.topic, log, null,
				new FollowProperties(recentEvents, DataSize.ofMegabytes(1), Duration.ofSeconds(30)),
				new MemoryBudget(1 << 20), this.slow::add);
	}

	/**
	 * A follower without Kafka whose subscriptions wait for heartbeats in a given wheel.
	 */
	private TopicFollower follower(Topic topic, HeartbeatWheel wheel) {
		return new TopicFollower(topic, null, null,
				new FollowProperties(100, DataSize.ofMegabytes(1), Duration.ofSeconds(30)), new MemoryBudget(1 << 20),
				this.slow::add, EventTracing.NONE, wheel);
	}

	private List<Event> append(MemoryEventLog log, int count) {
		for (int i = 0; i < count; i++) {
			log.append(this.topic,
					List.of(new OutgoingEvent(EventType.EVENT, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8))))
				.block(TIMEOUT);
		}
		return log.all(this.topic);
	}

	private static long offset(Followed followed) {
		return followed.event().offset();
	}

	private static Event event(long offset) {
		return new Event(0, offset, EventType.EVENT, Instant.now(),
				("{\"n\":" + offset + "}").getBytes(StandardCharsets.UTF_8));
	}

}
