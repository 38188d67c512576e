package dev.streamgate.storage.memory;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventPosition;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.OutgoingEvent;
import dev.streamgate.core.storage.EventTail;
import dev.streamgate.core.topic.Topic;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The memory event log as a node without Kafka uses it: Kafka's numbering, retention by
 * time and by size, reads and cursors around what retention dropped.
 */
class MemoryEventLogTests {

	private Instant now = Instant.parse("2026-12-01T00:00:00Z");

	private final Clock clock = new Clock() {

		@Override
		public Instant instant() {
			return MemoryEventLogTests.this.now;
		}

		@Override
		public java.time.ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(java.time.ZoneId zone) {
			return this;
		}

	};

	private static Topic topic(int partitions, Duration retention) {
		return new Topic("t", "t", null, null, null, null, partitions, retention, null, null, null, null)
			.withDefaults();
	}

	private static OutgoingEvent event(String data) {
		return new OutgoingEvent(EventType.EVENT, data.getBytes(StandardCharsets.UTF_8));
	}

	private static List<String> data(List<Event> events) {
		return events.stream().map((event) -> new String(event.data(), StandardCharsets.UTF_8)).toList();
	}

	@Test
	void numbersEachPartitionFromZeroAndSpreadsEventsWithoutAKeyRoundRobin() {
		MemoryEventLog log = new MemoryEventLog(this.clock);
		Topic topic = topic(2, Duration.ofDays(1));
		List<EventPosition> first = log.append(topic, List.of(event("a"))).block();
		List<EventPosition> next = log.append(topic, List.of(event("b"), event("c"))).block();

		assertThat(first).containsExactly(new EventPosition(0, 0, 2));
		assertThat(next).containsExactly(new EventPosition(1, 0, 2), new EventPosition(0, 1, 2));
		assertThat(log.end(topic).block()).isEqualTo(Cursor.of(new long[] { 1, 0 }));
	}

	@Test
	void dropsWhatIsOlderThanTheRetentionAndStartsAfterIt() {
		MemoryEventLog log = new MemoryEventLog(this.clock);
		Topic topic = topic(1, Duration.ofHours(1));
		log.append(topic, List.of(event("old"))).block();
		this.now = this.now.plus(Duration.ofMinutes(40));
		log.append(topic, List.of(event("middle"))).block();
		this.now = this.now.plus(Duration.ofMinutes(40));
		log.append(topic, List.of(event("new"))).block();

		assertThat(data(log.all(topic))).containsExactly("middle", "new");
		assertThat(log.start(topic).block()).isEqualTo(Cursor.of(new long[] { 0 }));
		assertThat(data(log.read(topic, Cursor.beforeAll(1), Cursor.of(new long[] { 2 })).collectList().block()))
			.as("a read from before the start gets what is left")
			.containsExactly("middle", "new");
		assertThat(log.status(topic).block().retained()).isEqualTo(2);
	}

	@Test
	void keepsAtMostItsShareOfBytesPerPartitionDroppingTheOldest() {
		int eventBytes = MemoryEventLog.EVENT_OVERHEAD + 100;
		MemoryEventLog log = new MemoryEventLog(this.clock, 2L * 10 * eventBytes, Long.MAX_VALUE);
		Topic topic = topic(2, Duration.ofDays(1));
		String data = "x".repeat(100);
		IntStream.range(0, 50).forEach((i) -> log.append(topic, List.of(event(data))).block());

		assertThat(log.all(topic)).hasSize(20);
		assertThat(log.start(topic).block()).isEqualTo(Cursor.of(new long[] { 14, 14 }));
		assertThat(log.end(topic).block()).isEqualTo(Cursor.of(new long[] { 24, 24 }));
	}

	@Test
	void allTopicsTogetherKeepAtMostTheirBoundTheAppendingTopicGivingUpItsOldest() {
		int eventBytes = MemoryEventLog.EVENT_OVERHEAD + 100;
		MemoryEventLog log = new MemoryEventLog(this.clock, Long.MAX_VALUE, 30L * eventBytes);
		Topic quiet = new Topic("quiet", "quiet", null, null, null, null, 1, Duration.ofDays(1), null, null, null, null)
			.withDefaults();
		Topic busy = topic(2, Duration.ofDays(1));
		String data = "x".repeat(100);
		IntStream.range(0, 10).forEach((i) -> log.append(quiet, List.of(event(data))).block());
		IntStream.range(0, 100).forEach((i) -> log.append(busy, List.of(event(data))).block());

		assertThat(log.storedBytes()).isLessThanOrEqualTo(30L * eventBytes);
		assertThat(log.all(quiet)).as("the quiet topic kept what it had").hasSize(10);
		assertThat(log.all(busy)).hasSize(20).extracting(Event::partition).containsOnly(0, 1);
		assertThat(log.start(busy).block()).isEqualTo(Cursor.of(new long[] { 39, 39 }));
		assertThat(log.end(busy).block()).isEqualTo(Cursor.of(new long[] { 49, 49 }));
		log.delete(busy).block();
		assertThat(log.storedBytes()).isEqualTo(10L * eventBytes);
	}

	@Test
	void readsBetweenTwoCursorsAcrossManyDroppedEvents() {
		MemoryEventLog log = new MemoryEventLog(this.clock, 64L * (MemoryEventLog.EVENT_OVERHEAD + 4), Long.MAX_VALUE);
		Topic topic = topic(1, Duration.ofDays(1));
		IntStream.range(0, 5000).forEach((i) -> log.append(topic, List.of(event("%04d".formatted(i)))).block());

		List<Event> read = log.read(topic, Cursor.of(new long[] { 4969 }), Cursor.of(new long[] { 4979 }))
			.collectList()
			.block();
		assertThat(data(read)).containsExactly("4970", "4971", "4972", "4973", "4974", "4975", "4976", "4977", "4978",
				"4979");
		assertThat(log.start(topic).block()).isEqualTo(Cursor.of(new long[] { 4935 }));
	}

	@Test
	void aFollowerStartsAtTheEndAndHearsEachLaterEventInOrder() {
		MemoryEventLog log = new MemoryEventLog(this.clock);
		Topic topic = topic(1, Duration.ofDays(1));
		log.append(topic, List.of(event("before"))).block();
		List<String> heard = new java.util.ArrayList<>();
		Cursor[] start = new Cursor[1];
		log.follow(topic, new EventTail.Listener() {

			@Override
			public void onStart(Cursor position) {
				start[0] = position;
			}

			@Override
			public void onEvent(Event event) {
				heard.add(new String(event.data(), StandardCharsets.UTF_8));
			}

		});
		log.append(topic, List.of(event("one"), event("two"))).block();

		assertThat(start[0]).isEqualTo(Cursor.of(new long[] { 0 }));
		assertThat(heard).containsExactly("one", "two");
	}

}
