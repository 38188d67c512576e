package dev.streamgate.storage.kafka;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import javax.management.ObjectName;

import jakarta.json.Json;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventAttributes;
import dev.streamgate.core.event.EventPosition;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.OutgoingEvent;
import dev.streamgate.core.storage.EventTail;
import dev.streamgate.core.storage.SnapshotStore.Checkpoint;
import dev.streamgate.core.topic.Storage;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class KafkaEventLogIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(15);

	private KafkaClients clients;

	private Admin admin;

	private KafkaWriter writer;

	private KafkaWriter batchWriter;

	private PublicationSenders publications;

	private KafkaEventLog log;

	@BeforeEach
	void connect() {
		this.clients = new KafkaClients(TestKafka.bootstrapServers(), Map.of(),
				ConfigTopicsIntegrationTests.properties(TestKafka.uniquePrefix()));
		this.admin = this.clients.admin();
		this.writer = this.clients.writer("test");
		this.batchWriter = this.clients.transactionalWriter("test-batch");
		this.publications = this.clients.publicationSenders("test");
		this.log = new KafkaEventLog(this.admin, this.clients, this.publications, this.batchWriter,
				TestKafka.eventStorage());
	}

	@AfterEach
	void close() {
		this.log.close();
		this.publications.close();
		this.writer.close();
		this.batchWriter.close();
		this.admin.close();
	}

	private Topic createTopic(String id, int partitions) {
		Topic topic = new Topic(id, null, null, null, null, null, partitions, null, null, null, null, null)
			.withDefaults();
		this.log.create(topic).block(TIMEOUT);
		return topic;
	}

	private static OutgoingEvent event(String json) {
		return new OutgoingEvent(EventType.EVENT, json.getBytes(StandardCharsets.UTF_8));
	}

	@Test
	void appendedEventsAreReadBackBetweenCursorsInOrder() {
		Topic topic = createTopic("ordered", 1);
		assertThat(this.log.end(topic).block(TIMEOUT)).isEqualTo(Cursor.of(-1));
		for (int i = 0; i < 5; i++) {
			List<EventPosition> positions = this.log.append(topic, List.of(event("{\"n\":" + i + "}"))).block(TIMEOUT);
			assertThat(positions).singleElement().hasToString(Integer.toString(i));
		}
		assertThat(this.log.end(topic).block(TIMEOUT)).isEqualTo(Cursor.of(4));
		assertThat(this.log.start(topic).block(TIMEOUT)).isEqualTo(Cursor.of(-1));
		List<Event> middle = this.log.read(topic, Cursor.of(1), Cursor.of(3)).collectList().block(TIMEOUT);
		assertThat(middle).extracting(Event::offset).containsExactly(2L, 3L);
		assertThat(new String(middle.get(0).data(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":2}");
		assertThat(middle.get(0).type()).isEqualTo(EventType.EVENT);
		assertThat(this.log.read(topic, Cursor.of(4), Cursor.of(4)).collectList().block(TIMEOUT)).isEmpty();
	}

	@Test
	void anEventCopiesItsValueOutOfTheFetchedBytes() {
		// Consumers hand a record's value as a view of the bytes their fetch brought,
		// with other records' bytes around it: the event keeps a copy of its own bytes.
		byte[] fetched = "xx{\"n\":1}yy".getBytes(StandardCharsets.UTF_8);
		ByteBuffer value = ByteBuffer.wrap(fetched, 2, 7).slice();
		ConsumerRecord<String, ByteBuffer> record = new ConsumerRecord<>("streamgate.own", 0, 42, "k", value);
		Event event = this.log.event(record);
		Arrays.fill(fetched, (byte) 0);
		assertThat(new String(event.data(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":1}");
		assertThat(event.offset()).isEqualTo(42);
		assertThat(value.remaining()).as("the view is left as it was").isEqualTo(7);
	}

	@Test
	void aReadCancelledFromAnotherThreadClosesItsConsumer() throws Exception {
		// A subscriber that leaves during a catch-up cancels from its own thread (an
		// event loop) while the read polls on another: the consumer was closed there,
		// concurrently (a KafkaConsumer refuses that, and was never closed) or blocking
		// the event loop.
		Topic topic = createTopic("cancelled", 1);
		this.log.append(topic, IntStream.range(0, 2000).mapToObj((i) -> event("{\"n\":" + i + "}")).toList())
			.block(TIMEOUT);
		Cursor end = this.log.end(topic).block(TIMEOUT);
		for (int i = 0; i < 10; i++) {
			List<Event> first = this.log.read(topic, Cursor.beforeAll(1), end)
				.publishOn(Schedulers.parallel())
				.take(3)
				.collectList()
				.block(TIMEOUT);
			assertThat(first).extracting(Event::offset).containsExactly(0L, 1L, 2L);
		}
		await().atMost(TIMEOUT).untilAsserted(() -> assertThat(readers()).as("read consumers still open").isEmpty());
	}

	@Test
	void aReadGoesOnThroughAnInterruptNotMeantForIt() {
		// An interrupt left on the reading thread by a cancelled task ended the read
		// there, and a resume skipped the rest of its gap.
		Topic topic = createTopic("interrupted-dedicated", 1);
		// More than one fetch: the consumer polls the broker again after the interrupt.
		String pad = "x".repeat(1000);
		this.log.append(topic,
				IntStream.range(0, 2000).mapToObj((i) -> event("{\"n\":" + i + ",\"pad\":\"" + pad + "\"}")).toList())
			.block(TIMEOUT);
		Cursor end = this.log.end(topic).block(TIMEOUT);
		AtomicBoolean interrupted = new AtomicBoolean();
		List<Event> read = this.log.read(topic, Cursor.beforeAll(1), end).doOnNext((event) -> {
			if (interrupted.compareAndSet(false, true)) {
				Thread.currentThread().interrupt();
			}
		}).collectList().block(TIMEOUT);
		assertThat(interrupted).isTrue();
		assertThat(read).extracting(Event::offset)
			.containsExactlyElementsOf(LongStream.range(0, 2000).boxed().toList());
	}

	@Test
	void readsThatEndNormallyShareTheirConsumer() throws Exception {
		// A snapshot publication reads the records after its document every time: a
		// consumer per read cost a connection and a metadata request each time.
		Topic topic = createTopic("reread", 1);
		for (int i = 0; i < 5; i++) {
			this.log.append(topic, List.of(event("{\"n\":" + i + "}"))).block(TIMEOUT);
			Cursor end = this.log.end(topic).block(TIMEOUT);
			assertThat(this.log.read(topic, Cursor.beforeAll(1), end).collectList().block(TIMEOUT)).hasSize(i + 1);
		}
		assertThat(readers()).as("read consumers open").hasSize(1);
		this.log.close();
		assertThat(readers()).as("read consumers open after close").isEmpty();
	}

	private static Set<ObjectName> readers() throws Exception {
		return ManagementFactory.getPlatformMBeanServer()
			.queryNames(new ObjectName("kafka.consumer:type=consumer-metrics,client-id=streamgate-read*"), null);
	}

	@Test
	void aBatchIsOneTransactionVisibleWhole() {
		Topic topic = createTopic("batch", 3);
		List<OutgoingEvent> batch = IntStream.range(0, 30).mapToObj((i) -> event("{\"n\":" + i + "}")).toList();
		List<EventPosition> positions = this.log.append(topic, batch).block(TIMEOUT);
		assertThat(positions).hasSize(30);
		Cursor end = this.log.end(topic).block(TIMEOUT);
		List<Event> read = this.log.read(topic, Cursor.beforeAll(3), end).collectList().block(TIMEOUT);
		// read_committed: exactly the 30 events, the transaction markers are not events
		assertThat(read).hasSize(30);
	}

	@Test
	void theTailDeliversEverythingAfterItsStartPosition() throws Exception {
		Topic topic = createTopic("tailed", 2);
		this.log.append(topic, List.of(event("{\"before\":true}"))).block(TIMEOUT);
		AtomicReference<Cursor> start = new AtomicReference<>();
		List<Event> events = new CopyOnWriteArrayList<>();
		try (KafkaEventTail tail = new KafkaEventTail(this.clients, this.log);
				AutoCloseable following = tail.follow(topic, listener(start, events))) {
			await().atMost(TIMEOUT).until(() -> start.get() != null);
			assertThat(start.get().reaches(this.log.end(topic).block(TIMEOUT))).isTrue();
			for (int i = 0; i < 10; i++) {
				this.log.append(topic, List.of(event("{\"n\":" + i + "}"))).block(TIMEOUT);
			}
			await().atMost(TIMEOUT).until(() -> events.size() == 10);
			assertThat(events)
				.allSatisfy((event) -> assertThat(start.get().isBefore(event.partition(), event.offset())).isTrue());
		}
	}

	@Test
	void twoListenersOfOneTopicBothReceiveEveryLaterEvent() throws Exception {
		// An SSE hub and a webhook feed of the same topic on one node (found by the fault
		// suite: the second used to replace the first, which then missed every event).
		Topic topic = createTopic("shared", 1);
		List<Event> first = new CopyOnWriteArrayList<>();
		List<Event> second = new CopyOnWriteArrayList<>();
		AtomicReference<Cursor> firstStart = new AtomicReference<>();
		AtomicReference<Cursor> secondStart = new AtomicReference<>();
		try (KafkaEventTail tail = new KafkaEventTail(this.clients, this.log);
				AutoCloseable one = tail.follow(topic, listener(firstStart, first))) {
			// Following starts at the end as it stands when the tail has reached it.
			await().atMost(TIMEOUT).until(() -> firstStart.get() != null);
			for (int i = 0; i < 3; i++) {
				this.log.append(topic, List.of(event("{\"n\":" + i + "}"))).block(TIMEOUT);
			}
			await().atMost(TIMEOUT).until(() -> first.size() == 3);
			try (AutoCloseable two = tail.follow(topic, listener(secondStart, second))) {
				await().atMost(TIMEOUT).until(() -> secondStart.get() != null);
				for (int i = 3; i < 6; i++) {
					this.log.append(topic, List.of(event("{\"n\":" + i + "}"))).block(TIMEOUT);
				}
				await().atMost(TIMEOUT).until(() -> first.size() == 6 && second.size() == 3);
			}
			// The tail hears of a stop on its own thread and runs its commands in
			// order: a follow asked after the stop starts once the stop is done.
			List<Event> third = new CopyOnWriteArrayList<>();
			AtomicReference<Cursor> thirdStart = new AtomicReference<>();
			try (AutoCloseable three = tail.follow(topic, listener(thirdStart, third))) {
				await().atMost(TIMEOUT).until(() -> thirdStart.get() != null);
				this.log.append(topic, List.of(event("{\"n\":6}"))).block(TIMEOUT);
				await().atMost(TIMEOUT).until(() -> first.size() == 7 && third.size() == 1);
			}
			assertThat(first).extracting(Event::offset).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L);
			assertThat(second).extracting(Event::offset).containsExactly(3L, 4L, 5L);
			assertThat(third).extracting(Event::offset).containsExactly(6L);
			assertThat(secondStart.get().isBefore(0, 3)).isTrue();
		}
	}

	@Test
	void aTopicWhoseEventsAreGoneNeverStallsTheOtherTopics() throws Exception {
		// A node-wide freeze found by outside probing: a start for a deleted topic
		// blocked the
		// tail's
		// one thread in position(), retried for ever, so no other topic got an event.
		Topic gone = createTopic("gone", 1);
		this.log.delete(gone).block(TIMEOUT);
		Topic alive = createTopic("alive", 1);
		AtomicReference<Cursor> aliveStart = new AtomicReference<>();
		List<Event> events = new CopyOnWriteArrayList<>();
		try (KafkaEventTail tail = new KafkaEventTail(this.clients, this.log)) {
			AutoCloseable stuck = tail.follow(gone, listener(new AtomicReference<>(), new CopyOnWriteArrayList<>()));
			try (AutoCloseable following = tail.follow(alive, listener(aliveStart, events))) {
				await().atMost(TIMEOUT).until(() -> aliveStart.get() != null);
				this.log.append(alive, List.of(event("{\"n\":1}"))).block(TIMEOUT);
				await().atMost(TIMEOUT).until(() -> events.size() == 1);
				// Stopping the stuck topic is not held up either, and the tail goes on.
				stuck.close();
				this.log.append(alive, List.of(event("{\"n\":2}"))).block(TIMEOUT);
				await().atMost(TIMEOUT).until(() -> events.size() == 2);
			}
		}
	}

	@Test
	void topicsSharingAPartitionSeeOnlyTheirOwnEventsAndANewIncarnationNoneOfItsPredecessors() throws Exception {
		new ConfigTopics(this.admin, this.clients, TestKafka.eventStorage()).ensure();
		Topic alpha = sharedTopic("alpha", 1000);
		Topic beta = sharedTopic(collidingWith(alpha), 1000);
		assertThat(this.log.partitions(beta)).isEqualTo(this.log.partitions(alpha));
		Cursor before = this.log.end(alpha).block(TIMEOUT);
		List<String> order = List.of("a1", "b1", "a2", "b2", "a3");
		List<EventPosition> positions = new ArrayList<>();
		for (String name : order) {
			Topic topic = name.startsWith("a") ? alpha : beta;
			positions.addAll(this.log.append(topic, List.of(event("\"" + name + "\""))).block(TIMEOUT));
		}
		Cursor end = this.log.end(alpha).block(TIMEOUT);
		assertThat(data(this.log.read(alpha, before, end).collectList().block(TIMEOUT))).containsExactly("\"a1\"",
				"\"a2\"", "\"a3\"");
		assertThat(data(this.log.read(beta, before, end).collectList().block(TIMEOUT))).containsExactly("\"b1\"",
				"\"b2\"");
		// A cursor is a position in the shared partition: resuming from a1 gives a2, a3.
		Cursor afterA1 = Cursor.of(positions.get(0).offset());
		assertThat(data(this.log.read(alpha, afterA1, end).collectList().block(TIMEOUT))).containsExactly("\"a2\"",
				"\"a3\"");
		assertThat(this.log.newest(alpha, (event) -> true).map((event) -> new String(event.data())).block(TIMEOUT))
			.isEqualTo("\"a3\"");
		// The same id created again: none of the earlier topic's events are its own.
		Topic alphaAgain = sharedTopic("alpha", 2000);
		assertThat(this.log.read(alphaAgain, before, end).collectList().block(TIMEOUT)).isEmpty();
		assertThat(this.log.newest(alphaAgain, (event) -> true).blockOptional(TIMEOUT)).isEmpty();
	}

	@Test
	void readsOfTopicsSharingAPartitionShareOnePass() throws Exception {
		// Webhooks of many topics behind their node's memory each read their gap: read
		// apart, every record of the partition was fetched once per reader.
		new ConfigTopics(this.admin, this.clients, TestKafka.eventStorage()).ensure();
		Topic first = sharedTopic("crowd", 1000);
		List<Topic> topics = new ArrayList<>(List.of(first));
		neighbours(first, 19).forEach((id) -> topics.add(sharedTopic(id, 1000)));
		Cursor before = this.log.end(first).block(TIMEOUT);
		for (int round = 0; round < 25; round++) {
			for (Topic topic : topics) {
				this.log.append(topic, List.of(event("\"" + topic.id() + ":" + round + "\""))).block(TIMEOUT);
			}
		}
		Cursor end = this.log.end(first).block(TIMEOUT);
		long records = end.last(0) - before.last(0);
		// The log's own passes, counting the records they hand over: every record a poll
		// returns is routed once, whichever consumer fetched it and whether or not it is
		// still open (the consumers' metrics once read 0 in CI after whole reads).
		AtomicLong handed = new AtomicLong();
		try (ReadConsumers consumers = readConsumers(new CopyOnWriteArrayList<>());
				SharedScans scans = new SharedScans(consumers, (record) -> {
					handed.incrementAndGet();
					return this.log.route(record);
				}, this.log::event, Duration.ofMillis(200), TIMEOUT, Schedulers.boundedElastic())) {
			TopicPartition partition = this.log.partitions(first).get(0);
			List<Mono<List<String>>> reads = topics.stream()
				.map((topic) -> scans.read(partition, this.log.route(topic), before.last(0) + 1, end.last(0))
					.map((event) -> new String(event.data()))
					.collectList())
				.toList();
			List<List<String>> read = Flux.mergeSequential(reads).collectList().block(TIMEOUT);
			for (int i = 0; i < topics.size(); i++) {
				String id = topics.get(i).id();
				assertThat(read.get(i)).as(id)
					.containsExactlyElementsOf(
							IntStream.range(0, 25).mapToObj((n) -> "\"" + id + ":" + n + "\"").toList());
			}
			// Twenty reads apart fetch the partition twenty times; together, once (or a
			// few times, for reads that came after a pass had gone by).
			long polled = handed.get();
			System.out
				.println(topics.size() + " reads of a shared partition's " + records + " records polled " + polled);
			assertThat(polled).as("records polled for %d reads of %d records", topics.size(), records)
				.isGreaterThanOrEqualTo(records)
				.isLessThanOrEqualTo(4 * records);
		}
	}

	@Test
	void aSharedReadWhoseSubscriberStopsAskingHoldsUpNoOtherAndResumesWhereItStood() {
		new ConfigTopics(this.admin, this.clients, TestKafka.eventStorage()).ensure();
		Topic slow = sharedTopic("dawdler", 1000);
		Topic quick = sharedTopic(collidingWith(slow), 1000);
		Cursor before = this.log.end(slow).block(TIMEOUT);
		// More than a read may hold beyond its demand: the slow one leaves the pass.
		String pad = "x".repeat(8192);
		for (int n = 0; n < 300; n++) {
			this.log.append(slow, List.of(event("{\"n\":" + n + ",\"pad\":\"" + pad + "\"}"))).block(TIMEOUT);
			this.log.append(quick, List.of(event("{\"n\":" + n + "}"))).block(TIMEOUT);
		}
		assertThat(300L * pad.length()).isGreaterThan(2L * SharedScans.OVERDRAFT_BYTES);
		Cursor end = this.log.end(slow).block(TIMEOUT);
		List<Event> slowEvents = new CopyOnWriteArrayList<>();
		AtomicReference<org.reactivestreams.Subscription> slowSubscription = new AtomicReference<>();
		this.log.read(slow, before, end).subscribe(new reactor.core.CoreSubscriber<Event>() {
			@Override
			public void onSubscribe(org.reactivestreams.Subscription subscription) {
				slowSubscription.set(subscription);
				subscription.request(2);
			}

			@Override
			public void onNext(Event event) {
				slowEvents.add(event);
			}

			@Override
			public void onError(Throwable ex) {
			}

			@Override
			public void onComplete() {
			}
		});
		await().atMost(TIMEOUT).until(() -> slowEvents.size() == 2);
		// The other read of the partition goes through while the first asks for nothing.
		assertThat(this.log.read(quick, before, end).collectList().block(TIMEOUT)).hasSize(300);
		assertThat(slowEvents).hasSize(2);
		// Asked again, it goes on from where it stood, nothing skipped or repeated.
		slowSubscription.get().request(Long.MAX_VALUE);
		await().atMost(TIMEOUT).until(() -> slowEvents.size() == 300);
		assertThat(slowEvents).extracting((event) -> new String(event.data()))
			.containsExactlyElementsOf(
					IntStream.range(0, 300).mapToObj((n) -> "{\"n\":" + n + ",\"pad\":\"" + pad + "\"}").toList());
	}

	@Test
	void sharedReadsCancelledFromAnotherThreadLeaveTheirPassForTheOthers() {
		Filled filled = sharedTopicWith("quitter", 2000);
		Topic topic = filled.topic();
		Cursor before = filled.before();
		Cursor end = filled.end();
		for (int i = 0; i < 10; i++) {
			List<Event> first = this.log.read(topic, before, end)
				.publishOn(Schedulers.parallel())
				.take(3)
				.collectList()
				.block(TIMEOUT);
			assertThat(first).extracting(Event::offset)
				.containsExactly(before.last(0) + 1, before.last(0) + 2, before.last(0) + 3);
		}
		assertThat(this.log.read(topic, before, end).count().block(TIMEOUT)).isEqualTo(2000);
	}

	@Test
	void aPassOnAPooledThreadLeftInterruptedByAnEarlierTaskReadsAll() {
		// A cancelled read can leave its pooled thread interrupted for the next
		// task: the pass that ran next failed its reads and closed its consumer.
		Filled filled = sharedTopicWith("interrupted", 50);
		Topic topic = filled.topic();
		Cursor before = filled.before();
		Cursor end = filled.end();
		Scheduler leftInterrupted = Schedulers.fromExecutor((task) -> new Thread(() -> {
			Thread.currentThread().interrupt();
			task.run();
		}).start());
		List<KafkaConsumer<String, ByteBuffer>> made = new CopyOnWriteArrayList<>();
		try (ReadConsumers consumers = readConsumers(made);
				SharedScans scans = new SharedScans(consumers, this.log::route, this.log::event, Duration.ofMillis(200),
						TIMEOUT, leftInterrupted)) {
			TopicPartition partition = this.log.partitions(topic).get(0);
			for (int i = 0; i < 3; i++) {
				assertThat(scans.read(partition, this.log.route(topic), before.last(0) + 1, end.last(0))
					.collectList()
					.block(TIMEOUT)).hasSize(50);
			}
			// Every consumer given back, none closed: a pass that ends as the next read
			// comes may have made a second one.
			await().atMost(TIMEOUT).until(() -> !made.isEmpty() && consumers.kept() == made.size());
		}
	}

	@Test
	void theTailSeparatesTopicsThatShareAPartition() throws Exception {
		new ConfigTopics(this.admin, this.clients, TestKafka.eventStorage()).ensure();
		Topic alpha = sharedTopic("tail-alpha", 1000);
		Topic beta = sharedTopic(collidingWith(alpha), 1000);
		List<Event> alphaEvents = new CopyOnWriteArrayList<>();
		List<Event> betaEvents = new CopyOnWriteArrayList<>();
		AtomicReference<Cursor> alphaStart = new AtomicReference<>();
		AtomicReference<Cursor> betaStart = new AtomicReference<>();
		try (KafkaEventTail tail = new KafkaEventTail(this.clients, this.log);
				AutoCloseable following = tail.follow(beta, listener(betaStart, betaEvents))) {
			AutoCloseable alphaFollowing = tail.follow(alpha, listener(alphaStart, alphaEvents));
			await().atMost(TIMEOUT).until(() -> alphaStart.get() != null && betaStart.get() != null);
			this.log.append(alpha, List.of(event("\"a1\""))).block(TIMEOUT);
			this.log.append(beta, List.of(event("\"b1\""))).block(TIMEOUT);
			await().atMost(TIMEOUT).until(() -> alphaEvents.size() == 1 && betaEvents.size() == 1);
			// Stopping one topic leaves the shared partition assigned for the other.
			// The tail hears of a stop on its own thread: an event of this node that
			// Kafka acknowledges before then may still reach the stopped listener
			// (TopicFollower keeps nothing after its end), none after.
			alphaFollowing.close();
			this.log.append(alpha, List.of(event("\"a2\""))).block(TIMEOUT);
			this.log.append(beta, List.of(event("\"b2\""))).block(TIMEOUT);
			await().atMost(TIMEOUT).until(() -> betaEvents.size() == 2);
			// The tail runs its commands in order: a follow asked after the stop has
			// started only once the stop is done.
			AtomicReference<Cursor> laterStart = new AtomicReference<>();
			try (AutoCloseable later = tail.follow(sharedTopic("tail-gamma", 1000),
					listener(laterStart, new CopyOnWriteArrayList<>()))) {
				await().atMost(TIMEOUT).until(() -> laterStart.get() != null);
				this.log.append(alpha, List.of(event("\"a3\""))).block(TIMEOUT);
				this.log.append(beta, List.of(event("\"b3\""))).block(TIMEOUT);
				await().atMost(TIMEOUT).until(() -> betaEvents.size() == 3);
			}
			assertThat(data(alphaEvents)).isIn(List.of("\"a1\""), List.of("\"a1\"", "\"a2\""));
			assertThat(data(betaEvents)).containsExactly("\"b1\"", "\"b2\"", "\"b3\"");
			assertThat(betaEvents).allSatisfy((event) -> assertThat(event.partition()).isZero());
		}
	}

	@Test
	void aSharedTopicWithAShorterRetentionThanTheSharedLogSeesOlderEventsAsGone() {
		new ConfigTopics(this.admin, this.clients, TestKafka.eventStorage()).ensure();
		Instant created = Instant.ofEpochMilli(1000);
		Topic brief = new Topic("brief", null, null, null, null, null, null, Duration.ofMinutes(1), Storage.SHARED,
				null, null, null)
			.withDefaults()
			.withTimestamps(created, created);
		TopicPartition partition = this.log.partitions(brief).get(0);
		// An event of the topic published ten minutes ago: older than its retention.
		ProducerRecord<String, byte[]> old = new ProducerRecord<>(partition.topic(), partition.partition(),
				System.currentTimeMillis() - Duration.ofMinutes(10).toMillis(), brief.id(),
				"\"old\"".getBytes(StandardCharsets.UTF_8),
				List.of(new RecordHeader(KafkaEventLog.TYPE_HEADER, "event".getBytes(StandardCharsets.UTF_8)),
						new RecordHeader(KafkaEventLog.INCARNATION_HEADER,
								brief.incarnation().getBytes(StandardCharsets.UTF_8))));
		long oldOffset = this.writer.send(old).block(TIMEOUT).offset();
		long fresh = this.log.append(brief, List.of(event("\"fresh\""))).block(TIMEOUT).get(0).offset();
		Cursor start = this.log.start(brief).block(TIMEOUT);
		assertThat(start.last(0)).isGreaterThanOrEqualTo(oldOffset).isLessThan(fresh);
		assertThat(data(this.log.read(brief, start, this.log.end(brief).block(TIMEOUT)).collectList().block(TIMEOUT)))
			.containsExactly("\"fresh\"");
	}

	@Test
	void typesKeysAndForeignHeadersAreReadBackInBothLayoutsAndOneKeyKeepsOnePartition() throws Exception {
		new ConfigTopics(this.admin, this.clients, TestKafka.eventStorage()).ensure();
		Topic shared = sharedTopic("typed-shared", 1000);
		Topic dedicated = createTopic("typed-dedicated", 3).withStorage(Storage.DEDICATED);
		for (Topic topic : List.of(shared, dedicated)) {
			Cursor before = this.log.end(topic).block(TIMEOUT);
			List<OutgoingEvent> events = new ArrayList<>();
			for (int i = 0; i < 6; i++) {
				events.add(new OutgoingEvent(EventType.EVENT, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8),
						EventAttributes.of((i % 2 == 0) ? "order.created" : null, (i < 3) ? "customer-1" : null)));
			}
			this.log.append(topic, events).block(TIMEOUT);
			List<Event> read = this.log.read(topic, before, this.log.end(topic).block(TIMEOUT))
				.collectList()
				.block(TIMEOUT);
			assertThat(read).hasSize(6);
			read.sort(
					java.util.Comparator.comparing((Event event) -> new String(event.data(), StandardCharsets.UTF_8)));
			assertThat(read).extracting((event) -> event.attributes().type())
				.containsExactly("order.created", null, "order.created", null, "order.created", null);
			assertThat(read).extracting((event) -> event.attributes().key())
				.containsExactly("customer-1", "customer-1", "customer-1", null, null, null);
			assertThat(read).allSatisfy((event) -> assertThat(event.attributes().headers()).isEmpty());
			// Kafka's partitioner puts the events of one key on one partition.
			assertThat(read.subList(0, 3)).extracting(Event::partition).containsOnly(read.get(0).partition());
		}
		// A record written by another producer into the dedicated topic: its own headers
		// are the event's, streamgate's are not.
		TopicPartition partition = this.log.partitions(dedicated).get(1);
		ProducerRecord<String, byte[]> foreign = new ProducerRecord<>(partition.topic(), partition.partition(), "k-9",
				"{}".getBytes(StandardCharsets.UTF_8),
				List.of(new RecordHeader("ce_type", "invoice.paid".getBytes(StandardCharsets.UTF_8)),
						new RecordHeader("ce_source", "/billing".getBytes(StandardCharsets.UTF_8)),
						new RecordHeader("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
							.getBytes(StandardCharsets.UTF_8))));
		long offset = this.writer.send(foreign).block(TIMEOUT).offset();
		Event read = this.log.read(dedicated, Cursor.beforeAll(3), this.log.end(dedicated).block(TIMEOUT))
			.filter((event) -> event.offset() == offset && event.partition() == 1)
			.blockFirst(TIMEOUT);
		assertThat(read).isNotNull();
		assertThat(read.attributes()).isEqualTo(new EventAttributes("invoice.paid", "k-9", Map.of("ce_source",
				"/billing", "traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")));
	}

	private Topic sharedTopic(String id, long createdAt) {
		Instant created = Instant.ofEpochMilli(createdAt);
		Topic topic = new Topic(id, null, null, null, null, null, null, null, Storage.SHARED, null, null, null)
			.withDefaults()
			.withTimestamps(created, created);
		this.log.create(topic).block(TIMEOUT);
		return topic;
	}

	/** An id whose events land in the same shared partition as the given topic's. */
	private String collidingWith(Topic topic) {
		return neighbours(topic, 1).get(0);
	}

	/** Ids whose events land in the same shared partition as the given topic's. */
	private List<String> neighbours(Topic topic, int count) {
		TopicPartition partition = this.log.partitions(topic).get(0);
		return IntStream.range(0, 10_000)
			.mapToObj((i) -> topic.id() + "-neighbour-" + i)
			.filter((id) -> this.log.partitions(topic.withId(id)).get(0).equals(partition))
			.limit(count)
			.toList();
	}

	/** A shared topic and the events appended to it, in one batch. */
	private Filled sharedTopicWith(String id, int events) {
		new ConfigTopics(this.admin, this.clients, TestKafka.eventStorage()).ensure();
		Topic topic = sharedTopic(id, 1000);
		Cursor before = this.log.end(topic).block(TIMEOUT);
		this.log.append(topic, IntStream.range(0, events).mapToObj((i) -> event("{\"n\":" + i + "}")).toList())
			.block(TIMEOUT);
		return new Filled(topic, before, this.log.end(topic).block(TIMEOUT));
	}

	private record Filled(Topic topic, Cursor before, Cursor end) {
	}

	/** Read consumers as the event log makes them, each also added to a list. */
	private ReadConsumers readConsumers(List<KafkaConsumer<String, ByteBuffer>> made) {
		return new ReadConsumers(() -> {
			KafkaConsumer<String, ByteBuffer> consumer = KafkaEventLog.consumer(this.clients.readConsumer("read"));
			made.add(consumer);
			return consumer;
		}, 8, Duration.ofSeconds(10), System::nanoTime);
	}

	private static List<String> data(List<Event> events) {
		return events.stream().map((event) -> new String(event.data(), StandardCharsets.UTF_8)).toList();
	}

	private static EventTail.Listener listener(AtomicReference<Cursor> start, List<Event> events) {
		return new EventTail.Listener() {
			@Override
			public void onStart(Cursor position) {
				start.set(position);
			}

			@Override
			public void onEvent(Event event) {
				events.add(event);
			}
		};
	}

	@Test
	void publicationsWithinTheLingerShareAProduceRequestAndKeepTheirOrder() {
		try (Lingering lingering = lingering(Duration.ofMillis(300), "lingering")) {
			PublicationSenders publications = lingering.senders();
			KafkaEventLog lingeringLog = lingering.log();
			Topic topic = createTopic("lingered", 1);
			// The producers learn the shared log's partitions with their first record;
			// sends wait meanwhile, and would travel together for that reason alone.
			lingeringLog.append(topic, List.of(event("{\"n\":-2}"))).block(TIMEOUT);
			publications
				.send(publications.lingering(), lingeringLog.records(topic, List.of(event("{\"n\":-1}"))).get(0))
				.block(TIMEOUT);
			// Twenty publications 10 ms apart, as twenty requests would come: without a
			// linger each goes in a produce request of its own.
			List<List<EventPosition>> positions = Flux.interval(Duration.ofMillis(10))
				.take(20)
				.flatMapSequential((i) -> lingeringLog.append(topic, List.of(event("{\"n\":" + i + "}"))))
				.collectList()
				.block(TIMEOUT);
			assertThat(positions).hasSize(20);
			assertThat(data(this.log.read(topic, Cursor.beforeAll(1), this.log.end(topic).block(TIMEOUT))
				.collectList()
				.block(TIMEOUT)))
				.containsExactlyElementsOf(IntStream.range(-2, 20).mapToObj((i) -> "{\"n\":" + i + "}").toList());
			// The lingering producer's records: the one sent above alone, then the twenty
			// (but perhaps the first, sent at once) in one request or two.
			assertThat(ProducerMetrics.of(publications.lingering(), "records-per-request-avg"))
				.isGreaterThanOrEqualTo(5);
		}
	}

	@Test
	void publicationsFurtherApartThanTheLingerGoAtOnce() {
		try (Lingering lingering = lingering(Duration.ofMillis(200), "apart")) {
			PublicationSenders publications = lingering.senders();
			KafkaEventLog lingeringLog = lingering.log();
			Topic topic = createTopic("apart", 1);
			// Each sent half a second after the one before it was answered.
			List<List<EventPosition>> positions = Flux.range(0, 3)
				.concatMap((i) -> Mono.delay(Duration.ofMillis(500))
					.then(Mono.defer(() -> lingeringLog.append(topic, List.of(event("{\"n\":" + i + "}"))))))
				.collectList()
				.block(TIMEOUT);
			assertThat(positions).hasSize(3);
			assertThat(data(this.log.read(topic, Cursor.beforeAll(1), this.log.end(topic).block(TIMEOUT))
				.collectList()
				.block(TIMEOUT))).containsExactly("{\"n\":0}", "{\"n\":1}", "{\"n\":2}");
			assertThat(ProducerMetrics.of(publications.immediate(), "record-send-total")).isEqualTo(3);
			assertThat(ProducerMetrics.of(publications.lingering(), "record-send-total")).isZero();
		}
	}

	/**
	 * An event log whose publications linger as {@code streamgate.kafka.publish-linger}
	 * says.
	 */
	private Lingering lingering(Duration linger, String purpose) {
		StreamgateKafkaProperties defaults = this.clients.properties();
		KafkaClients clients = new KafkaClients(TestKafka.bootstrapServers(), Map.of(),
				new StreamgateKafkaProperties(defaults.topicPrefix(), defaults.leasePartitions(),
						defaults.attemptsRetention(), defaults.writeTimeout(), defaults.startupTimeout(),
						defaults.leaseSessionTimeout(), linger, defaults.tailPause()));
		PublicationSenders senders = clients.publicationSenders(purpose);
		return new Lingering(senders,
				new KafkaEventLog(this.admin, clients, senders, this.batchWriter, TestKafka.eventStorage()));
	}

	private record Lingering(PublicationSenders senders, KafkaEventLog log) implements AutoCloseable {

		@Override
		public void close() {
			this.log.close();
			this.senders.close();
		}

	}

	@Test
	void snapshotCheckpointsAreKeptPerTopicAndSurviveANewReader() {
		try (KafkaSnapshotStore store = new KafkaSnapshotStore(this.clients, this.writer)) {
			new ConfigTopics(this.admin, this.clients, TestKafka.eventStorage()).ensure();
			store.start();
			store.save("doc", new Checkpoint(41, Json.createObjectBuilder().add("a", 1).build(), "i1")).block(TIMEOUT);
			store.save("doc", new Checkpoint(42, Json.createObjectBuilder().add("a", 2).build(), "i1")).block(TIMEOUT);
			assertThat(store.get("doc"))
				.hasValueSatisfying((checkpoint) -> assertThat(checkpoint.offset()).isEqualTo(42));
		}
		try (KafkaSnapshotStore reader = new KafkaSnapshotStore(this.clients, this.writer)) {
			reader.start();
			await().atMost(TIMEOUT)
				.until(() -> reader.get("doc").isPresent() && reader.get("doc").get().offset() == 42);
			Checkpoint read = reader.get("doc").get();
			assertThat(read.document()).isEqualTo(Json.createObjectBuilder().add("a", 2).build());
			assertThat(read.incarnation()).isEqualTo("i1");
			assertThat(reader.has("doc")).isTrue();
			assertThat(reader.has("other")).isFalse();
			// A node behind writes an older checkpoint of the same topic: the furthest
			// stays.
			reader.save("doc", new Checkpoint(40, Json.createObjectBuilder().add("a", 0).build(), "i1")).block(TIMEOUT);
			assertThat(reader.get("doc").get().offset()).isEqualTo(42);
			// The topic was deleted and created again: its new incarnation's first
			// checkpoint
			// replaces the old one, however far the old one was.
			reader.save("doc", new Checkpoint(7, Json.createArrayBuilder().add("b").build(), "i2")).block(TIMEOUT);
			assertThat(reader.get("doc")).hasValueSatisfying((checkpoint) -> {
				assertThat(checkpoint.offset()).isEqualTo(7);
				assertThat(checkpoint.incarnation()).isEqualTo("i2");
				assertThat(checkpoint.document()).isEqualTo(Json.createArrayBuilder().add("b").build());
			});
			reader.delete("doc").block(TIMEOUT);
			assertThat(reader.get("doc")).isEmpty();
			assertThat(reader.has("doc")).isFalse();
		}
	}

}
