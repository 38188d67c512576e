package dev.streamgate.subscribe.follow;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;
import reactor.test.StepVerifier;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.MemoryBudget;
import dev.streamgate.core.topic.Topic;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TopicFollower} without Kafka: events are handed to it as the node's event tail
 * does, and read back from a memory event log.
 */
class TopicFollowerTests {

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

	private static Event event(long offset) {
		return new Event(0, offset, EventType.EVENT, Instant.now(),
				("{\"n\":" + offset + "}").getBytes(StandardCharsets.UTF_8));
	}

}
