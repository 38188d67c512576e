package dev.streamgate.core.storage;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.CursorFormat;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventAttributes;
import dev.streamgate.core.event.EventLogStatus;
import dev.streamgate.core.event.EventPosition;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.OutgoingEvent;
import dev.streamgate.core.topic.Storage;
import dev.streamgate.core.topic.Topic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What every event log and its tail promise, whatever keeps the events: each storage's
 * tests extend it with their own log, so that the behaviour above the log is the same
 * over Kafka and in memory.
 */
public abstract class EventLogContract {

	protected static final Duration TIMEOUT = Duration.ofSeconds(15);

	/** The log under test, made fresh for each test. */
	protected abstract EventLog log();

	/** The tail of the same node. */
	protected abstract EventTail tail();

	private Topic created(String id, int partitions, Storage storage) {
		Topic topic = new Topic(id, null, null, null, null, null, partitions, null, storage, null, null, null)
			.withDefaults();
		log().create(topic).block(TIMEOUT);
		return topic;
	}

	private static OutgoingEvent event(String json) {
		return new OutgoingEvent(EventType.EVENT, json.getBytes(StandardCharsets.UTF_8));
	}

	private static OutgoingEvent event(String json, String type, String key, Map<String, String> headers) {
		return new OutgoingEvent(EventType.EVENT, json.getBytes(StandardCharsets.UTF_8),
				new EventAttributes(type, key, headers));
	}

	private static List<String> data(List<Event> events) {
		return events.stream().map((event) -> new String(event.data(), StandardCharsets.UTF_8)).toList();
	}

	private List<Event> readAll(Topic topic) {
		return log().read(topic, log().start(topic).block(TIMEOUT), log().end(topic).block(TIMEOUT))
			.collectList()
			.block(TIMEOUT);
	}

	@Test
	void anEmptyTopicEndsWhereItStarts() {
		Topic topic = created("empty", 3, Storage.DEDICATED);

		assertThat(log().end(topic).block(TIMEOUT)).isEqualTo(log().start(topic).block(TIMEOUT))
			.isEqualTo(Cursor.beforeAll(3));
		assertThat(readAll(topic)).isEmpty();
	}

	@Test
	void eventsAreReadBackWithTheirAttributesAndEachKeysEventsInOrder() {
		Topic topic = created("keyed", 3, Storage.DEDICATED);
		for (int i = 0; i < 9; i++) {
			log().append(topic, List.of(event("{\"n\":" + i + "}", "order.created", "customer-" + (i % 2),
					Map.of("ce_source", "/orders/" + i))))
				.block(TIMEOUT);
		}

		List<Event> all = readAll(topic);
		assertThat(all).hasSize(9);
		for (String key : List.of("customer-0", "customer-1")) {
			List<Event> ofKey = all.stream().filter((event) -> key.equals(event.attributes().key())).toList();
			assertThat(ofKey).extracting(Event::partition).containsOnly(ofKey.get(0).partition());
			assertThat(ofKey).extracting(Event::offset).isSorted();
		}
		Event first = all.stream()
			.filter((event) -> new String(event.data(), StandardCharsets.UTF_8).equals("{\"n\":0}"))
			.findFirst()
			.orElseThrow();
		assertThat(first.type()).isEqualTo(EventType.EVENT);
		assertThat(first.attributes().type()).isEqualTo("order.created");
		assertThat(first.attributes().headers()).containsEntry("ce_source", "/orders/0");
	}

	@Test
	void appendAnswersWhereEachEventLandedInOrder() {
		Topic topic = created("positions", 1, Storage.DEDICATED);
		List<EventPosition> first = log().append(topic, List.of(event("1"))).block(TIMEOUT);
		List<EventPosition> batch = log().append(topic, List.of(event("2"), event("3"))).block(TIMEOUT);

		assertThat(first).extracting(EventPosition::offset).containsExactly(0L);
		assertThat(batch).extracting(EventPosition::offset).hasSize(2).isSorted().allMatch((offset) -> offset > 0);
		assertThat(data(readAll(topic))).containsExactly("1", "2", "3");
	}

	@Test
	void aReadBetweenTwoCursorsGetsExactlyTheEventsAfterTheFirstUpToTheSecond() {
		Topic topic = created("between", 1, Storage.SHARED);
		long[] offsets = new long[10];
		for (int i = 0; i < 10; i++) {
			offsets[i] = log().append(topic, List.of(event(Integer.toString(i)))).block(TIMEOUT).get(0).offset();
		}

		List<Event> read = log().read(topic, Cursor.of(offsets[2]), Cursor.of(offsets[5])).collectList().block(TIMEOUT);
		assertThat(data(read)).containsExactly("3", "4", "5");
	}

	@Test
	void topicsInSharedStorageDoNotSeeEachOthersEvents() {
		Topic one = created("shared-one", 1, Storage.SHARED);
		Topic other = created("shared-other", 1, Storage.SHARED);
		log().append(one, List.of(event("\"one\""))).block(TIMEOUT);
		log().append(other, List.of(event("\"other\""))).block(TIMEOUT);
		log().append(one, List.of(event("\"one again\""))).block(TIMEOUT);

		assertThat(data(readAll(one))).containsExactly("\"one\"", "\"one again\"");
		assertThat(data(readAll(other))).containsExactly("\"other\"");
	}

	@Test
	void aCursorAtATimeStandsBeforeTheFirstEventPublishedThen() throws InterruptedException {
		Topic topic = created("timed", 1, Storage.DEDICATED);
		log().append(topic, List.of(event("\"before\""))).block(TIMEOUT);
		Thread.sleep(50);
		Instant between = Instant.now();
		Thread.sleep(50);
		log().append(topic, List.of(event("\"after\""))).block(TIMEOUT);

		Cursor at = log().at(topic, between).block(TIMEOUT);
		List<Event> after = log().read(topic, at, log().end(topic).block(TIMEOUT)).collectList().block(TIMEOUT);
		assertThat(data(after)).containsExactly("\"after\"");
	}

	@Test
	void statusNamesTheEndAndTheLastEventsTime() {
		Topic topic = created("status", 2, Storage.DEDICATED);
		Instant before = Instant.now().minusSeconds(1);
		for (int i = 0; i < 3; i++) {
			log().append(topic, List.of(event(Integer.toString(i)))).block(TIMEOUT);
		}

		EventLogStatus status = log().status(topic).block(TIMEOUT);
		assertThat(status.partitions()).isEqualTo(2);
		assertThat(status.position()).isEqualTo(CursorFormat.of(topic).format(log().end(topic).block(TIMEOUT)));
		assertThat(status.retained()).isEqualTo(3);
		assertThat(status.lastEventTime()).isAfter(before);
	}

	@Test
	void aTopicGivenMorePartitionsKeepsItsEventsAndTakesNewOnes() {
		Topic topic = created("growing", 1, Storage.DEDICATED);
		log().append(topic, List.of(event("\"old\""))).block(TIMEOUT);
		Topic grown = new Topic(topic.id(), null, null, null, null, null, 2, null, Storage.DEDICATED, null, null, null)
			.withDefaults();
		log().update(topic, grown).block(TIMEOUT);
		log().append(grown, List.of(event("\"a\""), event("\"b\""))).block(TIMEOUT);

		assertThat(data(readAll(grown))).containsExactlyInAnyOrder("\"old\"", "\"a\"", "\"b\"");
	}

	@Test
	void aFollowerStartsAtTheEndAndHearsEveryLaterEventOnceInOrder() throws Exception {
		Topic topic = created("followed", 1, Storage.SHARED);
		log().append(topic, List.of(event("\"before\""))).block(TIMEOUT);
		Cursor before = log().end(topic).block(TIMEOUT);
		AtomicReference<Cursor> start = new AtomicReference<>();
		List<Event> heard = new CopyOnWriteArrayList<>();
		try (AutoCloseable following = tail().follow(topic, new EventTail.Listener() {

			@Override
			public void onStart(Cursor position) {
				start.set(position);
			}

			@Override
			public void onEvent(Event event) {
				heard.add(event);
			}

		})) {
			await().atMost(TIMEOUT).until(() -> start.get() != null);
			for (int i = 0; i < 20; i++) {
				log()
					.append(topic,
							(i % 5 == 4) ? List.of(event(i + ".1"), event(i + ".2"))
									: List.of(event(Integer.toString(i))))
					.block(TIMEOUT);
			}
			await().atMost(TIMEOUT).until(() -> heard.size() >= 24);
		}

		assertThat(start.get()).isEqualTo(before);
		assertThat(heard).hasSize(24);
		assertThat(heard).extracting(Event::offset).isSorted().doesNotHaveDuplicates();
		assertThat(data(heard)).startsWith("0", "1", "2", "3", "4.1", "4.2", "5");
	}

}
