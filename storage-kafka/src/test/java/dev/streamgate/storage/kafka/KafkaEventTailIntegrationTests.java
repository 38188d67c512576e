package dev.streamgate.storage.kafka;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import javax.management.ObjectName;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventAttributes;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.OutgoingEvent;
import dev.streamgate.core.storage.EventTail;
import dev.streamgate.core.topic.Storage;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The event tail delivers what this node wrote at Kafka's acknowledgement, and keeps
 * every event once and in order when other writers, transactions and new listeners come
 * in between.
 */
class KafkaEventTailIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(15);

	private KafkaClients clients;

	private Admin admin;

	private KafkaWriter batchWriter;

	private PublicationSenders publications;

	private KafkaEventLog log;

	/** Another node writing into the same Kafka topics, with producers of its own. */
	private PublicationSenders otherPublications;

	private KafkaEventLog otherNode;

	@BeforeEach
	void connect() {
		this.clients = new KafkaClients(TestKafka.bootstrapServers(), Map.of(),
				ConfigTopicsIntegrationTests.properties(TestKafka.uniquePrefix()));
		this.admin = this.clients.admin();
		this.batchWriter = this.clients.transactionalWriter("test-batch");
		this.publications = this.clients.publicationSenders("test");
		this.log = new KafkaEventLog(this.admin, this.clients, this.publications, this.batchWriter,
				TestKafka.eventStorage());
		this.otherPublications = this.clients.publicationSenders("other");
		this.otherNode = new KafkaEventLog(this.admin, this.clients, this.otherPublications, this.batchWriter,
				TestKafka.eventStorage());
		new ConfigTopics(this.admin, this.clients, TestKafka.eventStorage()).ensure();
	}

	@AfterEach
	void close() {
		this.log.close();
		this.otherNode.close();
		this.publications.close();
		this.otherPublications.close();
		this.batchWriter.close();
		this.admin.close();
	}

	@Test
	void whatThisNodeWritesIsDeliveredAtItsAcknowledgementExactlyAsKafkaKeepsIt() throws Exception {
		// A tail whose fetch waits 4 s for 10 MB: what reaches it sooner came from the
		// acknowledgements.
		Map<String, String> slowFetch = Map.of(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, "10000000",
				ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "4000");
		KafkaClients slowClients = new KafkaClients(TestKafka.bootstrapServers(), slowFetch, this.clients.properties());
		Topic shared = sharedTopic("acknowledged-shared");
		Topic dedicated = createTopic("acknowledged-dedicated", 2).withStorage(Storage.DEDICATED);
		for (Topic topic : List.of(shared, dedicated)) {
			Heard heard = new Heard();
			try (KafkaEventTail tail = new KafkaEventTail(slowClients, this.log);
					AutoCloseable following = tail.follow(topic, heard)) {
				await().atMost(TIMEOUT).until(() -> heard.start.get() != null);
				for (int i = 0; i < 4; i++) {
					Map<String, String> headers = Map.of("ce_source", "/orders/" + i);
					this.log.append(topic, List.of(new OutgoingEvent(EventType.EVENT,
							("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8), new EventAttributes(
									(i % 2 == 0) ? "order.created" : null, (i < 2) ? "customer-1" : null, headers))))
						.block(TIMEOUT);
				}
				await().atMost(TIMEOUT).until(() -> heard.events.size() == 4);
				List<Event> read = this.log.read(topic, heard.start.get(), this.log.end(topic).block(TIMEOUT))
					.collectList()
					.block(TIMEOUT);
				assertThat(describe(heard.events)).containsExactlyInAnyOrderElementsOf(describe(read));
				// Once fetched back they are not delivered again; another node's record
				// is.
				this.otherNode.append(topic, List.of(event("\"other\""))).block(TIMEOUT);
				await().atMost(TIMEOUT).until(() -> heard.events.size() == 5);
				assertThat(heard.threads.get(4)).isEqualTo("streamgate-event-tail");
				this.log.append(topic, List.of(event("\"after\""))).block(TIMEOUT);
				await().atMost(TIMEOUT).until(() -> heard.events.size() == 6);
				// the fetch that brings this one has passed the one before it
				this.otherNode.append(topic, List.of(event("\"other again\""))).block(TIMEOUT);
				await().atMost(TIMEOUT).until(() -> heard.events.size() >= 7);
				assertThat(heard.threads).containsExactly("mine", "mine", "mine", "mine", "streamgate-event-tail",
						"mine", "streamgate-event-tail");
				List<Event> all = this.log.read(topic, heard.start.get(), this.log.end(topic).block(TIMEOUT))
					.collectList()
					.block(TIMEOUT);
				assertThat(describe(heard.events)).containsExactlyInAnyOrderElementsOf(describe(all));
			}
		}
	}

	@Test
	void writersInterleavedWithThisNodeAndTransactionsLeaveEveryEventOnceAndInOrder() throws Exception {
		Topic topic = sharedTopic("interleaved");
		Heard first = new Heard();
		Heard second = new Heard();
		try (KafkaEventTail tail = new KafkaEventTail(this.clients, this.log);
				AutoCloseable following = tail.follow(topic, first)) {
			await().atMost(TIMEOUT).until(() -> first.start.get() != null);
			Flux<Void> mine = Flux.range(0, 60)
				.concatMap((i) -> (i % 20 == 10)
						? this.log.append(topic, List.of(event("\"batch-" + i + "a\""), event("\"batch-" + i + "b\"")))
						: this.log.append(topic, List.of(event("\"mine-" + i + "\""))))
				.then()
				.flux();
			Flux<Void> others = Flux.range(0, 60)
				.concatMap((i) -> this.otherNode.append(topic, List.of(event("\"other-" + i + "\""))))
				.then()
				.flux();
			AutoCloseable joining = null;
			try {
				// The second listener joins while both nodes write.
				CompletableFuture<Void> writes = Flux.merge(mine, others).then().toFuture();
				await().atMost(TIMEOUT).until(() -> first.events.size() >= 30);
				joining = tail.follow(topic, second);
				writes.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
				await().atMost(TIMEOUT).until(() -> second.start.get() != null);
				Flux.range(0, 20)
					.flatMap((i) -> ((i % 2 == 0) ? this.log : this.otherNode).append(topic,
							List.of(event("\"late-" + i + "\""))), 4)
					.blockLast(TIMEOUT);
				Cursor end = this.log.end(topic).block(TIMEOUT);
				await().atMost(TIMEOUT).until(() -> first.events.size() == 60 + 3 + 60 + 20);
				List<Event> all = this.log.read(topic, first.start.get(), end).collectList().block(TIMEOUT);
				assertThat(describe(first.events)).containsExactlyElementsOf(describe(all));
				List<Event> afterJoin = this.log.read(topic, second.start.get(), end).collectList().block(TIMEOUT);
				await().atMost(TIMEOUT).until(() -> second.events.size() == afterJoin.size());
				assertThat(describe(second.events)).containsExactlyElementsOf(describe(afterJoin));
			}
			finally {
				if (joining != null) {
					joining.close();
				}
			}
		}
	}

	@Test
	void aNodeThatWritesAloneFetchesAFewTimesASecondRatherThanOncePerEvent() throws Exception {
		StreamgateKafkaProperties defaults = this.clients.properties();
		KafkaClients pausing = new KafkaClients(TestKafka.bootstrapServers(), Map.of(),
				new StreamgateKafkaProperties(defaults.topicPrefix(), defaults.leasePartitions(),
						defaults.attemptsRetention(), defaults.writeTimeout(), defaults.startupTimeout(),
						defaults.leaseSessionTimeout(), defaults.publishLinger(), Duration.ofMillis(200)));
		Topic topic = sharedTopic("alone");
		Heard heard = new Heard();
		Set<ObjectName> before = tailFetchMetrics();
		try (KafkaEventTail tail = new KafkaEventTail(pausing, this.log);
				AutoCloseable following = tail.follow(topic, heard)) {
			await().atMost(TIMEOUT).until(() -> heard.start.get() != null);
			Set<ObjectName> metrics = tailFetchMetrics();
			metrics.removeAll(before);
			ObjectName fetchTotal = metrics.iterator().next();
			double fetchesBefore = fetches(fetchTotal);
			for (int i = 0; i < 100; i++) {
				this.log.append(topic, List.of(event("{\"n\":" + i + "}"))).block(TIMEOUT);
			}
			await().atMost(TIMEOUT).until(() -> heard.events.size() == 100);
			// One fetch per event without the pause; with it, two per pause at most.
			assertThat(fetches(fetchTotal) - fetchesBefore).isLessThan(50);
			// Another node's event still comes, with the next fetch.
			this.otherNode.append(topic, List.of(event("\"other\""))).block(TIMEOUT);
			await().atMost(TIMEOUT).until(() -> heard.events.size() == 101);
			assertThat(heard.threads.get(100)).isEqualTo("streamgate-event-tail");
		}
	}

	private static Set<ObjectName> tailFetchMetrics() throws Exception {
		return ManagementFactory.getPlatformMBeanServer()
			.queryNames(
					new ObjectName("kafka.consumer:type=consumer-fetch-manager-metrics,client-id=streamgate-tail-*"),
					null);
	}

	private static double fetches(ObjectName metrics) throws Exception {
		return ((Number) ManagementFactory.getPlatformMBeanServer().getAttribute(metrics, "fetch-total")).doubleValue();
	}

	private static List<String> describe(List<Event> events) {
		List<String> described = new ArrayList<>();
		for (Event event : events) {
			described.add(event.partition() + "/" + event.offset() + " " + event.type() + " " + event.publishedAt()
					+ " " + new String(event.data(), StandardCharsets.UTF_8) + " " + event.attributes());
		}
		return described;
	}

	private static OutgoingEvent event(String json) {
		return new OutgoingEvent(EventType.EVENT, json.getBytes(StandardCharsets.UTF_8));
	}

	private Topic sharedTopic(String id) {
		Instant created = Instant.ofEpochMilli(1000);
		Topic topic = new Topic(id, null, null, null, null, null, null, null, Storage.SHARED, null, null, null)
			.withDefaults()
			.withTimestamps(created, created);
		this.log.create(topic).block(TIMEOUT);
		return topic;
	}

	private Topic createTopic(String id, int partitions) {
		Topic topic = new Topic(id, null, null, null, null, null, partitions, null, null, null, null, null)
			.withDefaults();
		this.log.create(topic).block(TIMEOUT);
		return topic;
	}

	/** A listener that keeps its start, its events and the threads that brought them. */
	private static final class Heard implements EventTail.Listener {

		final AtomicReference<Cursor> start = new AtomicReference<>();

		final List<Event> events = new CopyOnWriteArrayList<>();

		final List<String> threads = new CopyOnWriteArrayList<>();

		@Override
		public void onStart(Cursor position) {
			this.start.set(position);
		}

		@Override
		public void onEvent(Event event) {
			String thread = Thread.currentThread().getName();
			this.threads.add(thread.startsWith("kafka-producer-network-thread") ? "mine" : thread);
			this.events.add(event);
		}

	}

}
