package dev.streamgate.webhook;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.streamgate.support.BrokerProcess;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.KafkaRecords;
import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Subscriptions that deliver into a Kafka topic instead of an HTTP endpoint, read back
 * with Kafka's own consumer.
 */
class KafkaSubscriptionIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	@Test
	void everyVersionOfASnapshotTopicReachesKafkaInOrderAcrossARestart(@TempDir Path dir) throws Exception {
		String out = "out-" + TestKafka.uniquePrefix().replace(".", "");
		createKafkaTopic(out, 3);
		String[] args = GatewayKafka.processArguments(dir);
		String webhookId;
		try (GatewayProcess first = GatewayProcess.startReady(dir.resolve("first.log"), args)) {
			first.post("/api/v1/topics",
					"{\"id\":\"board\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-post\"}}", 201);
			first.post("/api/v1/publish/board", document(0), 202);
			String created = first.post("/api/v1/topics/board/webhooks",
					"{\"mode\":\"snapshot-patch\",\"headers\":{\"X-Team\":\"ops\"},\"kafka\":{\"bootstrapServers\":\""
							+ TestKafka.bootstrapServers() + "\",\"topic\":\"" + out + "\"}}",
					201);
			webhookId = parse(created).asJsonObject().getString("id");
			assertThat(parse(created).asJsonObject()).doesNotContainKey("url");
			for (int version = 1; version <= 10; version++) {
				first.post("/api/v1/publish/board", document(version), 202);
			}
			first.stop();
		}
		try (GatewayProcess second = GatewayProcess.startReady(dir.resolve("second.log"), args)) {
			for (int version = 11; version <= 20; version++) {
				second.post("/api/v1/publish/board", document(version), 202);
			}
			List<ConsumerRecord<String, String>> records = await().atMost(WAIT)
				.pollInterval(Duration.ofMillis(500))
				.until(() -> read(out),
						(read) -> read.stream().map((r) -> header(r, "streamgate-id")).distinct().count() >= 21);
			// At least once: a delivery sent again after the restart has the id of the
			// first; a receiver drops it by streamgate-id.
			Map<String, ConsumerRecord<String, String>> byId = new LinkedHashMap<>();
			for (ConsumerRecord<String, String> record : records) {
				assertThat(record.key()).isEqualTo("board");
				assertThat(header(record, "streamgate-topic")).isEqualTo("board");
				assertThat(header(record, "X-Team")).isEqualTo("ops");
				byId.putIfAbsent(header(record, "streamgate-id"), record);
			}
			List<ConsumerRecord<String, String>> unique = new ArrayList<>(byId.values());
			assertThat(header(unique.get(0), "streamgate-type")).isEqualTo("snapshot");
			JsonStructure rebuilt = null;
			int version = 0;
			for (ConsumerRecord<String, String> record : unique) {
				JsonObject envelope = parse(record.value()).asJsonObject();
				assertThat(envelope.getString("type")).isEqualTo(header(record, "streamgate-type"));
				rebuilt = "snapshot".equals(envelope.getString("type")) ? (JsonStructure) envelope.get("data")
						: Json.createPatch(envelope.getJsonArray("data")).apply(rebuilt);
				int v = ((JsonObject) rebuilt).getInt("v");
				assertThat(v).as("versions in order, none skipped").isEqualTo(version);
				version++;
			}
			assertThat(version).isEqualTo(21);
			assertThat(rebuilt).isEqualTo(parse(document(20)));
			// Replayed like any webhook: the document again, under new ids.
			second.post("/api/v1/topics/board/webhooks/" + webhookId + "/replay",
					"{\"since\":\"2020-01-01T00:00:00Z\"}", 202);
			List<ConsumerRecord<String, String>> replayed = await().atMost(WAIT)
				.pollInterval(Duration.ofMillis(500))
				.until(() -> read(out).stream().filter((r) -> header(r, "streamgate-id").endsWith("_r1")).toList(),
						(again) -> !again.isEmpty() && again.stream()
							.anyMatch((r) -> r.value().contains("\"v\":20") || r.value().contains("\"value\":20")));
			JsonStructure again = null;
			for (ConsumerRecord<String, String> record : replayed) {
				JsonObject envelope = parse(record.value()).asJsonObject();
				again = "snapshot".equals(envelope.getString("type")) ? (JsonStructure) envelope.get("data")
						: Json.createPatch(envelope.getJsonArray("data")).apply(again);
			}
			assertThat(header(replayed.get(0), "streamgate-type")).isEqualTo("snapshot");
			assertThat(again).isEqualTo(parse(document(20)));
			// Where deliveries stand, as for any webhook.
			await().atMost(WAIT)
				.untilAsserted(() -> assertThat(second.get("/api/v1/topics/board/webhooks/" + webhookId))
					.contains("\"topic\":\"" + out + "\"")
					.contains("\"failed\":0"));
		}
	}

	@Test
	void aClusterThatAsksForScramCredentialsGetsThemAndAWrongPasswordIsRefused(@TempDir Path dir) throws Exception {
		try (BrokerProcess other = BrokerProcess.startWithScram(dir.resolve("other-broker"),
				dir.resolve("other-broker.log"), "streamgate", "scram-pa55word");
				GatewayProcess gateway = GatewayProcess.startReady(dir.resolve("gateway.log"),
						GatewayKafka.processArguments(dir))) {
			try (Admin admin = Admin
				.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, other.bootstrapServers()))) {
				admin
					.createTopics(List.of(new NewTopic("audit", 1, (short) 1), new NewTopic("audit-512", 1, (short) 1)))
					.all()
					.get();
			}
			gateway.post("/api/v1/topics",
					"{\"id\":\"ledger\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}", 201);
			String base = "/api/v1/topics/ledger/webhooks";
			String wrong = "{\"kafka\":{\"bootstrapServers\":\"" + other.saslBootstrapServers()
					+ "\",\"topic\":\"audit\",\"security\":{\"protocol\":\"SASL_PLAINTEXT\",\"mechanism\":"
					+ "\"SCRAM-SHA-256\",\"username\":\"streamgate\",\"password\":\"not-it\"}}}";
			assertThat(gateway.post(base, wrong, 400)).contains("\"pointer\":\"/kafka\"")
				.contains("refused the credentials")
				.doesNotContain("not-it");
			String id = parse(gateway.post(base, wrong.replace("not-it", "scram-pa55word"), 201)).asJsonObject()
				.getString("id");
			// The same user with SCRAM-SHA-512, into another topic.
			gateway.post(base,
					wrong.replace("not-it", "scram-pa55word")
						.replace("SCRAM-SHA-256", "SCRAM-SHA-512")
						.replace("\"audit\"", "\"audit-512\""),
					201);
			for (int n = 0; n < 5; n++) {
				gateway.post("/api/v1/publish/ledger", "{\"n\":" + n + "}", 202);
			}
			List<Integer> received = await().atMost(WAIT)
				.pollInterval(Duration.ofMillis(500))
				.until(() -> read(other.bootstrapServers(), "audit").stream()
					.map((r) -> parse(r.value()).asJsonObject().getJsonObject("data").getInt("n"))
					.distinct()
					.toList(), (n) -> n.size() >= 5);
			assertThat(received).containsExactly(0, 1, 2, 3, 4);
			assertThat(await().atMost(WAIT)
				.pollInterval(Duration.ofMillis(500))
				.until(() -> read(other.bootstrapServers(), "audit-512").stream()
					.map((r) -> parse(r.value()).asJsonObject().getJsonObject("data").getInt("n"))
					.distinct()
					.toList(), (n) -> n.size() >= 5))
				.containsExactly(0, 1, 2, 3, 4);
			assertThat(gateway.get(base + "/" + id)).contains("\"password\":\"******\"")
				.doesNotContain("scram-pa55word");
		}
	}

	@Test
	void targetsThatCannotBeWrittenAreRefusedAtRegistration(@TempDir Path dir) throws Exception {
		try (GatewayProcess gateway = GatewayProcess.startReady(dir.resolve("gateway.log"),
				GatewayKafka.processArguments(dir))) {
			gateway.post("/api/v1/topics",
					"{\"id\":\"orders\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}", 201);
			String base = "/api/v1/topics/orders/webhooks";
			String broker = TestKafka.bootstrapServers();
			assertThat(gateway.post(base,
					"{\"kafka\":{\"bootstrapServers\":\"" + broker + "\",\"topic\":\"no-such-topic-here\"}}", 400))
				.contains("\"pointer\":\"/kafka\"")
				.contains("no-such-topic-here");
			assertThat(gateway.post(base, "{\"kafka\":{\"bootstrapServers\":\"127.0.0.1:1\",\"topic\":\"x\"}}", 400))
				.contains("\"pointer\":\"/kafka\"");
			assertThat(gateway.post(base, "{\"kafka\":{\"bootstrapServers\":\"127.0.0.2:9092\",\"topic\":\"x\"}}", 400))
				.contains("\"pointer\":\"/kafka/bootstrapServers\"");
			assertThat(gateway.post(base, "{\"kafka\":{\"topic\":\"bad topic\"}}", 400))
				.contains("\"pointer\":\"/kafka/topic\"");
			assertThat(
					gateway.post(base, "{\"kafka\":{\"topic\":\"x\",\"security\":{\"protocol\":\"SASL_SSL\"}}}", 400))
				.contains("\"pointer\":\"/kafka/security\"");
			assertThat(gateway.post(base, "{\"url\":\"http://127.0.0.1:9/x\",\"kafka\":{\"topic\":\"x\"}}", 400))
				.contains("\"pointer\":\"/kafka\"");
			assertThat(gateway.post(base, "{\"mode\":\"event\"}", 400)).contains("\"pointer\":\"/url\"");
		}
	}

	private static String document(int version) {
		return "{\"v\":" + version + ",\"rows\":[{\"id\":1,\"price\":" + (100 + version)
				+ "},{\"id\":2,\"price\":50}],\"note\":\"" + ((version % 2 == 0) ? "even" : "odd") + "\"}";
	}

	private static void createKafkaTopic(String name, int partitions) throws Exception {
		try (Admin admin = Admin
			.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
			admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
		}
	}

	private static List<ConsumerRecord<String, String>> read(String topic) {
		return read(TestKafka.bootstrapServers(), topic);
	}

	private static List<ConsumerRecord<String, String>> read(String bootstrapServers, String topic) {
		List<ConsumerRecord<String, String>> records = KafkaRecords.readAll(bootstrapServers, topic);
		// One streamgate topic is one key: all its records are in one partition.
		assertThat(records.stream().map(ConsumerRecord::partition).distinct()).hasSizeLessThanOrEqualTo(1);
		return records;
	}

	private static String header(ConsumerRecord<String, String> record, String name) {
		var header = record.headers().lastHeader(name);
		return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : null;
	}

	private static JsonValue parse(String json) {
		try (JsonReader reader = Json.createReader(new StringReader(json))) {
			return reader.readValue();
		}
	}

}
