package dev.streamgate.mirror;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.codec.ServerSentEvent;
import reactor.core.Disposable;

import dev.streamgate.support.BrokerProcess;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.Sse;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Topics fed by a {@code kafka} publisher: records of a source cluster (a broker in its
 * own JVM that asks for SCRAM credentials, or the gateway's own) mirrored into streamgate
 * topics, read by SSE subscribers.
 */
class KafkaMirrorIntegrationTests {

	private static final int RECORDS = 10_000;

	private static final int DOCUMENTS = 300;

	private static final int LEASE_PARTITIONS = 12;

	@Test
	void tenThousandRecordsAreMirroredExactlyOnceInOrderWhileTheOwnerIsKilled(@TempDir Path dir) throws Exception {
		try (BrokerProcess source = BrokerProcess.startWithScram(dir.resolve("source-broker"),
				dir.resolve("source-broker.log"), "mirror", "m1rr0r-pa55")) {
			try (Admin admin = Admin
				.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, source.bootstrapServers()))) {
				admin
					.createTopics(
							List.of(new NewTopic("orders-src", 2, (short) 1), new NewTopic("board-src", 1, (short) 1)))
					.all()
					.get();
			}
			String[] args = GatewayKafka.processArguments(dir);
			try (GatewayProcess first = GatewayProcess.startReady(dir.resolve("first.log"), args);
					GatewayProcess second = GatewayProcess.startReady(dir.resolve("second.log"), args)) {
				String security = "\"security\":{\"protocol\":\"SASL_PLAINTEXT\",\"mechanism\":\"SCRAM-SHA-256\","
						+ "\"username\":\"mirror\",\"password\":\"m1rr0r-pa55\"}";
				String publisher = "{\"type\":\"kafka\",\"bootstrapServers\":\"" + source.saslBootstrapServers()
						+ "\",\"topic\":\"%s\",\"startFrom\":\"earliest\"," + security + "}";
				// A wrong password is refused at creation, naming the field, never
				// echoed.
				assertThat(first.post("/api/v1/topics",
						"{\"id\":\"orders\",\"payloadType\":\"event\",\"publisher\":"
								+ publisher.formatted("orders-src").replace("m1rr0r-pa55", "not-it") + "}",
						400))
					.contains("\"pointer\":\"/publisher\"")
					.contains("refused the credentials")
					.doesNotContain("not-it");
				// The snapshot topic's lease is the event topic's: one kill fails both
				// over.
				String board = sameLeaseAs("orders");
				first.post("/api/v1/topics", "{\"id\":\"orders\",\"payloadType\":\"event\",\"publisher\":"
						+ publisher.formatted("orders-src") + "}", 201);
				// The snapshot topic's source takes SASL PLAIN.
				first.post("/api/v1/topics", "{\"id\":\"" + board + "\",\"payloadType\":\"snapshot\",\"publisher\":"
						+ publisher.formatted("board-src").replace("SCRAM-SHA-256", "PLAIN") + "}", 201);
				assertThat(first.get("/api/v1/topics/orders")).contains("\"password\":\"******\"")
					.doesNotContain("m1rr0r-pa55");
				GatewayProcess owner = await().atMost(Duration.ofSeconds(60))
					.until(() -> mirroring(first, "orders") ? first : mirroring(second, "orders") ? second : null,
							(found) -> found != null);
				GatewayProcess survivor = (owner == first) ? second : first;
				// The topics were created on the first node and reach the survivor
				// through the topics log a moment later; until then its streams are 404s.
				await().atMost(Duration.ofSeconds(30))
					.until(() -> survivor.get("/api/v1/topics/" + board).contains("\"id\":\"" + board + "\"")
							&& survivor.get("/api/v1/topics/orders").contains("\"id\":\"orders\""));

				List<ServerSentEvent<String>> orders = new CopyOnWriteArrayList<>();
				List<ServerSentEvent<String>> documents = new CopyOnWriteArrayList<>();
				Sse sse = new Sse(survivor.baseUrl());
				Disposable ordersStream = sse.stream("/api/v1/stream/orders?lastEventId=earliest", null)
					.subscribe(orders::add);
				Disposable boardStream = sse.stream("/api/v1/stream/" + board + "?mode=snapshot-patch", null)
					.subscribe(documents::add);
				AtomicInteger produced = new AtomicInteger();
				Thread producer = new Thread(() -> produce(source.bootstrapServers(), produced));
				try {
					producer.start();
					await().atMost(Duration.ofSeconds(90)).until(() -> orders.size() >= RECORDS / 4);
					assertThat(mirroring(owner, "orders")).as("the owner still mirrors when it is killed").isTrue();
					owner.kill();
					System.out.println("Killed the mirror's owner after " + orders.size() + " of " + produced.get()
							+ " produced records reached the subscriber");
					producer.join(Duration.ofSeconds(120).toMillis());
					assertThat(produced.get()).isEqualTo(RECORDS + DOCUMENTS);
					await().atMost(Duration.ofSeconds(120))
						.pollInterval(Duration.ofMillis(500))
						.until(() -> orders.size() >= RECORDS && lastVersion(documents) == DOCUMENTS - 1);
					// Anything mirrored twice would arrive right behind.
					Thread.sleep(3000);
				}
				finally {
					ordersStream.dispose();
					boardStream.dispose();
				}
				assertThat(mirroring(survivor, "orders")).as("the survivor took over").isTrue();
				checkOrders(orders);
				checkDocuments(documents);
				// The mirror asks its source how far behind it is after a poll that found
				// nothing; the status shows the last poll's answer.
				await().atMost(Duration.ofSeconds(15))
					.untilAsserted(() -> assertThat(survivor.get("/api/v1/topics/orders/status"))
						.contains("next to mirror: partition 0 offset")
						.contains("; 0 behind"));
				// A stored password only goes to its own cluster.
				assertThat(survivor.patch("/api/v1/topics/orders",
						"{\"publisher\":{\"bootstrapServers\":\"127.0.0.1:1\"}}", 400))
					.contains("\"pointer\":\"/publisher/security/password\"");

			}
		}
	}

	@Test
	void recordsThatAreNotJsonBecomeProblemsAndBadDefinitionsAreRefused(@TempDir Path dir) throws Exception {
		String prefix = TestKafka.uniquePrefix().replace(".", "");
		String events = prefix + "-events";
		String documents = prefix + "-documents";
		try (Admin admin = Admin
			.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
			admin.createTopics(List.of(new NewTopic(events, 1, (short) 1), new NewTopic(documents, 1, (short) 1)))
				.all()
				.get();
		}
		try (GatewayProcess gateway = GatewayProcess.startReady(dir.resolve("gateway.log"),
				GatewayKafka.processArguments(dir))) {
			Map<String, String> refused = Map.of("{\"type\":\"kafka\",\"topic\":\"no-such-source\"}", "/publisher",
					"{\"type\":\"kafka\",\"bootstrapServers\":\"127.0.0.1:1\",\"topic\":\"x\"}", "/publisher",
					"{\"type\":\"kafka\",\"bootstrapServers\":\"127.0.0.2:9092\",\"topic\":\"x\"}",
					"/publisher/bootstrapServers", "{\"type\":\"kafka\",\"topic\":\"bad topic\"}", "/publisher/topic",
					"{\"type\":\"kafka\",\"topic\":\"x\",\"url\":\"http://127.0.0.1:9/x\"}", "/publisher",
					"{\"type\":\"http-poller\",\"url\":\"http://127.0.0.1:9/x\",\"topic\":\"x\"}", "/publisher",
					"{\"type\":\"kafka\",\"topic\":\"x\",\"security\":{\"protocol\":\"SASL_SSL\"}}",
					"/publisher/security", "{\"type\":\"kafka\",\"topic\":\"x\",\"startFrom\":\"yesterday\"}",
					"/publisher/startFrom");
			refused.forEach((publisher,
					pointer) -> assertThat(
							gateway.post("/api/v1/topics", "{\"id\":\"bad\",\"publisher\":" + publisher + "}", 400))
						.as(publisher)
						.contains("\"pointer\":\"" + pointer + "\""));
			assertThat(gateway.post("/api/v1/topics",
					"{\"id\":\"bad\",\"publisher\":{\"type\":\"kafka\",\"topic\":\"no-such-source\"}}", 400))
				.contains("Kafka topic no-such-source does not exist");

			try (KafkaProducer<String, String> producer = new KafkaProducer<>(
					Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()),
					new StringSerializer(), new StringSerializer())) {
				// Before the topics exist: only the snapshot topic, which starts from the
				// earliest record, gets it.
				producer.send(new ProducerRecord<>(events, "k", "{\"before\":true}")).get();
				producer.send(new ProducerRecord<>(documents, "d", "{\"v\":1}")).get();
				gateway.post("/api/v1/topics",
						"{\"id\":\"feed\",\"publisher\":{\"type\":\"kafka\",\"topic\":\"" + events + "\"}}", 201);
				gateway.post("/api/v1/topics",
						"{\"id\":\"doc\",\"payloadType\":\"snapshot\",\"publisher\":"
								+ "{\"type\":\"kafka\",\"topic\":\"" + documents + "\",\"startFrom\":\"earliest\"}}",
						201);
				// The new mirror has written down where it starts.
				await().atMost(Duration.ofSeconds(30))
					.until(() -> gateway.get("/api/v1/topics/feed/status")
						.contains("next to mirror: partition 0 offset 1"));
				List<ServerSentEvent<String>> feed = new CopyOnWriteArrayList<>();
				List<ServerSentEvent<String>> doc = new CopyOnWriteArrayList<>();
				Sse sse = new Sse(gateway.baseUrl());
				Disposable feedStream = sse.stream("/api/v1/stream/feed?lastEventId=earliest", null)
					.subscribe(feed::add);
				Disposable docStream = sse.stream("/api/v1/stream/doc?mode=snapshot-patch", null).subscribe(doc::add);
				try {
					await().atMost(Duration.ofSeconds(30)).until(() -> doc.size() >= 1);
					producer.send(new ProducerRecord<>(events, "k", "{\"a\":1}")).get();
					producer.send(new ProducerRecord<>(events, "k", "not json")).get();
					producer.send(new ProducerRecord<>(events, "k", null)).get();
					producer.send(new ProducerRecord<>(events, null, "{\"a\":2}")).get();
					producer.send(new ProducerRecord<>(documents, "d", "[1")).get();
					producer.send(new ProducerRecord<>(documents, "d", "5")).get();
					producer.send(new ProducerRecord<>(documents, "d", "{\"v\":2}")).get();
					await().atMost(Duration.ofSeconds(30)).until(() -> feed.size() >= 4 && doc.size() >= 4);
				}
				finally {
					feedStream.dispose();
					docStream.dispose();
				}
				assertThat(feed).extracting(ServerSentEvent::event)
					.containsExactly("event", "problem", "event", "event");
				assertThat(parse(feed.get(0).data()).asJsonObject().getJsonObject("value").getInt("a")).isEqualTo(1);
				JsonObject problem = parse(feed.get(1).data()).asJsonObject();
				assertThat(problem.getString("type")).endsWith("/source-not-json");
				assertThat(problem.getJsonNumber("offset").longValue()).isEqualTo(2);
				assertThat(problem.getString("source")).isEqualTo("kafka:" + events);
				assertThat(parse(feed.get(2).data()).asJsonObject().get("value")).isEqualTo(JsonValue.NULL);
				JsonObject last = parse(feed.get(3).data()).asJsonObject();
				assertThat(last.get("key")).isEqualTo(JsonValue.NULL);
				assertThat(last.getJsonObject("value").getInt("a")).isEqualTo(2);

				assertThat(doc).extracting(ServerSentEvent::event)
					.containsExactly("snapshot", "problem", "problem", "patch");
				assertThat(parse(doc.get(1).data()).asJsonObject().getString("type")).endsWith("/source-not-json");
				assertThat(parse(doc.get(2).data()).asJsonObject().getString("detail")).contains("is a JSON number");
				JsonStructure rebuilt = Json.createPatch(parse(doc.get(3).data()).asJsonArray())
					.apply((JsonStructure) parse(doc.get(0).data()));
				assertThat(rebuilt).isEqualTo(parse("{\"v\":2}"));
				assertThat(gateway.get("/api/v1/topics/feed/status")).contains("1 records were not mirrored");
				assertThat(gateway.get("/actuator/prometheus"))
					.containsPattern("streamgate_mirror_records_invalid_total\\S* 3.0");
				// A record produced in a trace: its event goes on in that trace (the
				// CloudEvents form of a stream shows it).
				String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
				ProducerRecord<String, String> traced = new ProducerRecord<>(events, "k", "{\"traced\":true}");
				traced.headers().add(new RecordHeader("traceparent", traceparent.getBytes(StandardCharsets.UTF_8)));
				producer.send(traced).get();
				List<ServerSentEvent<String>> inTrace = sse
					.stream("/api/v1/stream/feed?lastEventId=earliest&format=cloudevents", null)
					.filter((event) -> event.data().contains("\"traced\":true"))
					.take(1)
					.collectList()
					.block(Duration.ofSeconds(30));
				assertThat(parse(inTrace.get(0).data()).asJsonObject().getString("traceparent")).isEqualTo(traceparent);
			}

			// A source that goes away is a problem and a failed status, not a silent
			// stall.
			List<ServerSentEvent<String>> after = new CopyOnWriteArrayList<>();
			Disposable watch = new Sse(gateway.baseUrl()).all("/api/v1/stream/feed", null).subscribe(after::add);
			try {
				await().atMost(Duration.ofSeconds(10)).until(() -> !after.isEmpty());
				try (Admin admin = Admin
					.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
					admin.deleteTopics(List.of(events)).all().get();
				}
				await().atMost(Duration.ofSeconds(60))
					.until(() -> after.stream().anyMatch((e) -> "problem".equals(e.event())));
			}
			finally {
				watch.dispose();
			}
			ServerSentEvent<String> gone = after.stream().filter((e) -> "problem".equals(e.event())).findFirst().get();
			assertThat(parse(gone.data()).asJsonObject().getString("type")).matches(".*/source-(missing|unreachable)");
			assertThat(gateway.get("/api/v1/topics/feed/status")).contains("\"outcome\":\"failed\"");
		}
	}

	private static void checkOrders(List<ServerSentEvent<String>> orders) {
		assertThat(orders).allSatisfy((event) -> assertThat(event.event()).isEqualTo("event"));
		Map<Integer, Long> nextOffset = new HashMap<>();
		Set<Integer> seen = new HashSet<>();
		for (ServerSentEvent<String> event : orders) {
			JsonObject data = parse(event.data()).asJsonObject();
			int n = data.getJsonObject("value").getInt("n");
			assertThat(seen.add(n)).as("record %d mirrored once", n).isTrue();
			int partition = data.getInt("partition");
			long offset = data.getJsonNumber("offset").longValue();
			assertThat(offset).as("partition %d in order, none skipped", partition)
				.isEqualTo(nextOffset.getOrDefault(partition, 0L));
			nextOffset.put(partition, offset + 1);
			assertThat(data.getString("key")).isEqualTo("customer-" + (n % 10));
			assertThat(data.getJsonObject("headers").getString("seq")).isEqualTo(Integer.toString(n));
			assertThat(data.getJsonObject("headers").getJsonArray("trace")).hasSize(2);
			assertThat(data.getString("timestamp")).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
		}
		assertThat(seen).hasSize(RECORDS);
		assertThat(nextOffset.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(RECORDS);
	}

	private static void checkDocuments(List<ServerSentEvent<String>> documents) {
		assertThat(documents.get(0).event()).isEqualTo("snapshot");
		JsonStructure document = (JsonStructure) parse(documents.get(0).data());
		int version = ((JsonObject) document).getInt("v");
		for (ServerSentEvent<String> event : documents.subList(1, documents.size())) {
			assertThat(event.event()).isEqualTo("patch");
			document = Json.createPatch(parse(event.data()).asJsonArray()).apply(document);
			int next = ((JsonObject) document).getInt("v");
			assertThat(next).as("each version once, in order").isEqualTo(version + 1);
			version = next;
		}
		assertThat(version).isEqualTo(DOCUMENTS - 1);
	}

	private static int lastVersion(List<ServerSentEvent<String>> documents) {
		if (documents.isEmpty()) {
			return -1;
		}
		JsonStructure document = null;
		for (ServerSentEvent<String> event : documents) {
			document = "snapshot".equals(event.event()) ? (JsonStructure) parse(event.data())
					: Json.createPatch(parse(event.data()).asJsonArray()).apply(document);
		}
		return ((JsonObject) document).getInt("v");
	}

	/**
	 * Records at about 400 a second, each with a key, headers (one of them twice) and a
	 * JSON value; every 33rd step a new version of the board document.
	 */
	private static void produce(String bootstrapServers, AtomicInteger produced) {
		Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
				ProducerConfig.ACKS_CONFIG, "all");
		try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(),
				new StringSerializer())) {
			int documents = 0;
			for (int n = 0; n < RECORDS; n++) {
				ProducerRecord<String, String> record = new ProducerRecord<>("orders-src", "customer-" + (n % 10),
						"{\"n\":" + n + ",\"item\":\"sku-" + (n * 7 % 101) + "\"}");
				record.headers().add(new RecordHeader("seq", Integer.toString(n).getBytes(StandardCharsets.UTF_8)));
				record.headers().add(new RecordHeader("trace", "a".getBytes(StandardCharsets.UTF_8)));
				record.headers().add(new RecordHeader("trace", "b".getBytes(StandardCharsets.UTF_8)));
				producer.send(record);
				produced.incrementAndGet();
				if (n % 33 == 0 && documents < DOCUMENTS) {
					producer.send(new ProducerRecord<>("board-src", "board", "{\"v\":" + documents
							+ ",\"rows\":[{\"id\":1,\"qty\":" + (documents * 3) + "},{\"id\":2,\"qty\":5}]}"));
					documents++;
					produced.incrementAndGet();
				}
				if (n % 40 == 0) {
					producer.flush();
					Thread.sleep(100);
				}
			}
			for (; documents < DOCUMENTS; documents++) {
				producer.send(new ProducerRecord<>("board-src", "board", "{\"v\":" + documents + ",\"rows\":[]}"));
				produced.incrementAndGet();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** A topic id whose lease is the given one's, so that the same node owns both. */
	private static String sameLeaseAs(String id) {
		for (int n = 0;; n++) {
			String candidate = "board-" + n;
			if (lease(candidate) == lease(id)) {
				return candidate;
			}
		}
	}

	private static int lease(String id) {
		return Utils.toPositive(Utils.murmur2(id.getBytes(StandardCharsets.UTF_8))) % LEASE_PARTITIONS;
	}

	/** Whether a node's last word on a topic's mirror is that it runs it. */
	private static boolean mirroring(GatewayProcess gateway, String topic) {
		String last = null;
		for (String line : gateway.outputLines()) {
			if (line.contains("Mirroring topic " + topic) || line.contains("Stopped mirroring topic " + topic)) {
				last = line;
			}
		}
		return last != null && last.contains("Mirroring topic " + topic);
	}

	static JsonValue parse(String json) {
		try (JsonReader reader = Json.createReader(new StringReader(json))) {
			return reader.readValue();
		}
	}

}
