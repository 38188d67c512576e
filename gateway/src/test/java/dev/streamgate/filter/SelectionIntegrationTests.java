package dev.streamgate.filter;

import java.io.StringReader;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.codec.ServerSentEvent;

import dev.streamgate.bench.sink.WebhookSink;
import dev.streamgate.bench.sink.WebhookSink.Received;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.JdkWebSocket;
import dev.streamgate.support.KafkaRecords;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.Sse;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Event types and filters end to end, over real HTTP and Kafka: publications name their
 * type and key, and every channel (SSE, several topics on one SSE stream, WebSocket,
 * webhooks checked with the official Standard Webhooks library, Kafka subscriptions read
 * with Kafka's consumer) delivers only the events its subscriber selected, resuming among
 * them exactly.
 */
class SelectionIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

	/** Orders over 100: the filter the subscribers below use. */
	private static final String FILTER = "data.amount > 100.0 && key.startsWith('eu-')";

	private static WebhookSink sink;

	private static RunningGateway gateway;

	@BeforeAll
	static void start() {
		sink = WebhookSink.start("127.0.0.1", 0);
		// The sink and the test broker listen on 127.0.0.1.
		gateway = RunningGateway.start(GatewayKafka.loopbackArguments());
	}

	@AfterAll
	static void stop() {
		gateway.close();
		sink.close();
	}

	@Test
	void aStreamDeliversOnlyTheSelectedEventsAndResumesAmongThem() {
		createEventTopic("sel-orders");
		Sse sse = new Sse(gateway.baseUrl());
		String path = "/api/v1/stream/sel-orders?types=order.*&filter=" + encode(FILTER);
		List<String> expectedIds = new ArrayList<>();
		List<ServerSentEvent<String>> received = sse.takeAfter(path, null, 3,
				() -> expectedIds.addAll(publishMix("sel-orders").subList(0, 3)));
		assertThat(received).extracting(ServerSentEvent::data)
			.containsExactly("{\"amount\":150,\"n\":1}", "{\"amount\":300,\"n\":5}", "{\"amount\":101.5,\"n\":7}");
		assertThat(received).extracting(ServerSentEvent::id).containsExactlyElementsOf(expectedIds);
		// Resuming after the first: the other two, nothing filtered out in between,
		// then what is published next.
		List<ServerSentEvent<String>> resumed = sse.takeAfter(path, expectedIds.get(0), 3,
				() -> publish("sel-orders", "{\"amount\":999,\"n\":8}", "order.created", "eu-9"));
		assertThat(resumed).extracting(ServerSentEvent::data)
			.containsExactly("{\"amount\":300,\"n\":5}", "{\"amount\":101.5,\"n\":7}", "{\"amount\":999,\"n\":8}");
		// A stream of several topics selects on each, and names the event types.
		createEventTopic("sel-invoices");
		List<ServerSentEvent<String>> both = sse.takeAfter(
				"/api/v1/stream?topic=sel-orders&topic=sel-invoices&types=invoice.paid,order.cancelled", null, 2,
				() -> {
					publish("sel-orders", "{\"n\":9}", "order.created", null);
					publish("sel-orders", "{\"n\":10}", "order.cancelled", null);
					publish("sel-invoices", "{\"n\":11}", null, null);
					publish("sel-invoices", "{\"n\":12}", "invoice.paid", null);
				});
		assertThat(both).extracting(ServerSentEvent::data)
			.containsExactly("{\"topic\":\"sel-orders\",\"eventType\":\"order.cancelled\",\"data\":{\"n\":10}}",
					"{\"topic\":\"sel-invoices\",\"eventType\":\"invoice.paid\",\"data\":{\"n\":12}}");
	}

	@Test
	void aWebSocketSubscriptionSelectsByTypesAndFilter() throws Exception {
		createEventTopic("sel-ws");
		String url = gateway.baseUrl().replace("http://", "ws://") + "/api/v1/ws";
		try (JdkWebSocket socket = JdkWebSocket.connect(url)) {
			socket.send("{\"subscribe\":{\"topic\":\"sel-ws\",\"types\":[\"order.*\"],\"filter\":"
					+ Json.createValue(FILTER) + "}}");
			socket.send("{\"subscribe\":{\"topic\":\"sel-ws\",\"filter\":\"data.amount >\"}}");
			JsonObject refused = socket.next(WAIT);
			assertThat(refused.getString("type")).isEqualTo("problem");
			assertThat(refused.getJsonObject("data").getString("detail")).contains("line 1, column 14");
			Thread.sleep(500);
			publishMix("sel-ws");
			List<String> received = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				JsonObject message = socket.next(WAIT);
				assertThat(message.getString("eventType")).startsWith("order.");
				received.add(message.getJsonObject("data").toString());
			}
			assertThat(received).containsExactly("{\"amount\":150,\"n\":1}", "{\"amount\":300,\"n\":5}",
					"{\"amount\":101.5,\"n\":7}");
			assertThat(socket.next(Duration.ofMillis(500))).as("nothing else").isNull();
		}
	}

	@Test
	void webhooksDeliverOnlyTheSelectedEventsAndTheirCursorPassesTheOthers() {
		createEventTopic("sel-hooks");
		sink.endpoint("sel-hooks", SECRET);
		JsonObject created = parse(
				gateway.post(
						"/api/v1/topics/sel-hooks/webhooks", "{\"url\":\"" + sink.url("sel-hooks") + "\",\"secret\":\""
								+ SECRET + "\",\"types\":[\"order.*\"],\"filter\":" + Json.createValue(FILTER) + "}",
						201));
		assertThat(created.getJsonArray("types").getString(0)).isEqualTo("order.*");
		assertThat(created.getString("filter")).isEqualTo(FILTER);
		List<String> ids = publishMix("sel-hooks");
		await().atMost(WAIT).until(() -> sink.endpoint("sel-hooks").received().size() >= 3);
		List<Received> received = sink.endpoint("sel-hooks").received();
		assertThat(received).hasSize(3).allSatisfy((delivery) -> {
			assertThat(delivery.signatureValid()).as("signature verified by the official library").isTrue();
			assertThat(parse(delivery.body()).getString("eventType")).startsWith("order.");
		});
		assertThat(received).extracting((delivery) -> parse(delivery.body()).getJsonObject("data").getInt("n"))
			.containsExactly(1, 5, 7);
		// The last event was not selected: the cursor moves past it all the same.
		String webhook = "/api/v1/topics/sel-hooks/webhooks/" + created.getString("id");
		String last = ids.get(ids.size() - 1);
		await().atMost(WAIT)
			.until(() -> parse(gateway.get(webhook)).getJsonObject("delivery").getString("cursor").equals(last));
		assertThat(parse(gateway.get(webhook)).getJsonObject("delivery").getInt("delivered")).isEqualTo(3);
		// A new filter applies from the next event on.
		gateway.patch(webhook, "{\"types\":null,\"filter\":\"data.n == 20\"}", 200);
		publish("sel-hooks", "{\"n\":19}", "order.created", "eu-1");
		publish("sel-hooks", "{\"n\":20}", null, null);
		await().atMost(WAIT).until(() -> sink.endpoint("sel-hooks").received().size() >= 4);
		assertThat(parse(sink.endpoint("sel-hooks").received().get(3).body()).getJsonObject("data").getInt("n"))
			.isEqualTo(20);
	}

	@Test
	void aTopicListsTheTypesPublishedToItWithCountsUntilItIsDeleted() {
		createEventTopic("sel-types");
		publishMix("sel-types");
		publish("sel-types", "{\"n\":9}", "invoice.paid", null);
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(gateway.get("/api/v1/topics/sel-types/types"))
				.matches(".*\\{\"type\":\"invoice.paid\",\"count\":2,\"lastSeen\":\"[^\"]+\"\\},"
						+ "\\{\"type\":\"order.cancelled\",\"count\":1,\"lastSeen\":\"[^\"]+\"\\},"
						+ "\\{\"type\":\"order.created\",\"count\":6,\"lastSeen\":\"[^\"]+\"\\}\\]\\}"));
		assertThat(gateway.get("/api/v1/topics/sel-nothing/types")).contains("topic-not-found");
		// Created again under the same id, the topic starts from no types.
		gateway.client().delete().uri("/api/v1/topics/sel-types").exchange().expectStatus().isNoContent();
		createEventTopic("sel-types");
		assertThat(gateway.get("/api/v1/topics/sel-types/types")).isEqualTo("{\"items\":[]}");
		publish("sel-types", "{}", "a.b", null);
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(gateway.get("/api/v1/topics/sel-types/types"))
				.startsWith("{\"items\":[{\"type\":\"a.b\",\"count\":1,"));
	}

	@Test
	void aKafkaSubscriptionWritesOnlyTheSelectedEvents() throws Exception {
		createEventTopic("sel-kafka");
		String out = "sel-out-" + TestKafka.uniquePrefix().replace(".", "");
		try (Admin admin = Admin
			.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
			admin.createTopics(List.of(new NewTopic(out, 1, (short) 1))).all().get();
		}
		gateway.post("/api/v1/topics/sel-kafka/webhooks",
				"{\"types\":[\"order.created\"],\"filter\":\"data.amount >= 300\",\"kafka\":{\"bootstrapServers\":\""
						+ TestKafka.bootstrapServers() + "\",\"topic\":\"" + out + "\"}}",
				201);
		publishMix("sel-kafka");
		await().atMost(WAIT).until(() -> read(out).size() >= 1);
		Thread.sleep(1000);
		List<ConsumerRecord<String, String>> records = read(out);
		assertThat(records).hasSize(1);
		assertThat(parse(records.get(0).value()).getJsonObject("data").getInt("n")).isEqualTo(5);
	}

	@Test
	void aViewOfASnapshotTopicDeliversOnlyItsPartOnStreamsAndWebhooks() {
		gateway.post("/api/v1/topics",
				"{\"id\":\"sel-prices\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-post\"}}", 201);
		publish("sel-prices", "{\"prices\":{\"EURUSD\":1.10,\"GBPUSD\":1.30},\"volume\":5}", null, null);
		sink.endpoint("sel-view", SECRET);
		gateway.post("/api/v1/topics/sel-prices/webhooks",
				"{\"url\":\"" + sink.url("sel-view") + "\",\"secret\":\"" + SECRET + "\",\"pointer\":\"/prices\"}",
				201);
		Sse sse = new Sse(gateway.baseUrl());
		Runnable changes = () -> {
			// Only the volume: no view changes.
			publish("sel-prices", "{\"prices\":{\"EURUSD\":1.10,\"GBPUSD\":1.30},\"volume\":6}", null, null);
			publish("sel-prices", "{\"prices\":{\"EURUSD\":1.10,\"GBPUSD\":1.31},\"volume\":7}", null, null);
			publish("sel-prices", "{\"prices\":{\"EURUSD\":1.11,\"GBPUSD\":1.31},\"volume\":8}", null, null);
		};
		List<ServerSentEvent<String>> row = sse.takeAfter("/api/v1/stream/sel-prices?pointer=/prices/EURUSD", null, 2,
				changes);
		assertThat(row).extracting(ServerSentEvent::event).containsExactly("snapshot", "patch");
		assertThat(row).extracting(ServerSentEvent::data)
			.containsExactly("1.10", "[{\"op\":\"replace\",\"path\":\"\",\"value\":1.11}]");
		List<ServerSentEvent<String>> table = sse.take("/api/v1/stream/sel-prices?pointer=/prices&mode=snapshot-only",
				null, 1);
		assertThat(table.get(0).data()).isEqualTo("{\"EURUSD\":1.11,\"GBPUSD\":1.31}");
		// The webhook started with the part as it was at registration, then each change.
		await().atMost(WAIT).until(() -> sink.endpoint("sel-view").received().size() >= 3);
		List<Received> received = sink.endpoint("sel-view").received();
		assertThat(received).hasSize(3).allSatisfy((delivery) -> assertThat(delivery.signatureValid()).isTrue());
		assertThat(received).extracting(Received::type).containsExactly("snapshot", "patch", "patch");
		assertThat(received).extracting((delivery) -> parse(delivery.body()).get("data").toString())
			.containsExactly("{\"EURUSD\":1.10,\"GBPUSD\":1.30}",
					"[{\"op\":\"replace\",\"path\":\"/GBPUSD\",\"value\":1.31}]",
					"[{\"op\":\"replace\",\"path\":\"/EURUSD\",\"value\":1.11}]");
		// A WebSocket view.
		String url = gateway.baseUrl().replace("http://", "ws://") + "/api/v1/ws";
		try (JdkWebSocket socket = JdkWebSocket.connect(url)) {
			socket.send("{\"subscribe\":{\"topic\":\"sel-prices\",\"pointer\":\"/prices/GBPUSD\"}}");
			JsonObject first = socket.next(WAIT);
			assertThat(first.getString("type")).isEqualTo("snapshot");
			assertThat(first.get("data").toString()).isEqualTo("1.31");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		// Views are of snapshot topics, and need a JSON pointer.
		assertProblem(gateway.get("/api/v1/stream/sel-prices?pointer=prices"), "invalid-parameter",
				"\"pointer\":\"pointer\"", "JSON pointer");
		assertProblem(gateway.get("/api/v1/stream/sel-prices?pointer=" + encode("/a~2")), "invalid-parameter",
				"\"pointer\":\"pointer\"");
		createEventTopic("sel-events");
		assertProblem(gateway.get("/api/v1/stream/sel-events?pointer=/a"), "invalid-parameter",
				"snapshot topic's document");
		assertProblem(gateway.post("/api/v1/topics/sel-prices/webhooks",
				"{\"url\":\"" + sink.url("x") + "\",\"pointer\":7}", 400), "invalid-webhook",
				"\"pointer\":\"/pointer\"");
	}

	@Test
	void badTypesFiltersAndAttributesAreProblems() {
		createEventTopic("sel-bad");
		gateway.post("/api/v1/topics",
				"{\"id\":\"sel-doc\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-post\"}}", 201);
		assertProblem(gateway.get("/api/v1/stream/sel-bad?filter=" + encode("data.amount >")), "invalid-filter",
				"\"pointer\":\"filter\"", "line 1, column 14");
		assertProblem(gateway.get("/api/v1/stream/sel-bad?filter=" + encode("amount > 1")), "invalid-filter",
				"undeclared reference to 'amount'");
		assertProblem(gateway.get("/api/v1/stream/sel-bad?types=" + encode("order created")), "invalid-parameter",
				"\"pointer\":\"types\"");
		assertProblem(gateway.get("/api/v1/stream/sel-doc?types=a"), "invalid-parameter", "snapshot topic");
		String hooks = "/api/v1/topics/sel-bad/webhooks";
		assertProblem(gateway.post(hooks, "{\"url\":\"" + sink.url("x") + "\",\"filter\":\"1 +\"}", 400),
				"invalid-webhook", "\"pointer\":\"/filter\"", "line 1, column 4");
		assertProblem(gateway.post(hooks, "{\"url\":\"" + sink.url("x") + "\",\"filter\":true}", 400),
				"invalid-webhook", "\"pointer\":\"/filter\"");
		assertProblem(gateway.post(hooks, "{\"url\":\"" + sink.url("x") + "\",\"types\":\"order.*\"}", 400),
				"invalid-webhook", "\"pointer\":\"/types\"");
		assertProblem(gateway.post(hooks, "{\"url\":\"" + sink.url("x") + "\",\"types\":[]}", 400), "invalid-webhook",
				"\"pointer\":\"/types\"");
		assertProblem(
				gateway.post("/api/v1/topics/sel-doc/webhooks",
						"{\"url\":\"" + sink.url("x") + "\",\"filter\":\"true\"}", 400),
				"invalid-webhook", "event topics");
		assertProblem(gateway.post("/api/v1/publish/sel-bad?type=" + encode("order created"), "{}", 400),
				"invalid-parameter", "\"pointer\":\"type\"");
		assertProblem(gateway.post("/api/v1/publish/sel-bad?key=" + "k".repeat(257), "{}", 400), "invalid-parameter",
				"1 to 256 characters");
		// A type given twice is its values joined with a comma, as WebFlux binds it: no
		// type.
		assertProblem(gateway.post("/api/v1/publish/sel-bad?type=a&type=b", "{}", 400), "invalid-parameter",
				"\"pointer\":\"type\"");
		assertProblem(gateway.post("/api/v1/publish/sel-doc?type=a", "{}", 400), "invalid-parameter", "snapshot topic");
	}

	/**
	 * Publishes eight orders and invoices; of them, three are order types over 100 with a
	 * key starting eu- (n = 1, 5, 7).
	 * @return the ids of the selected three, then the id of the last event (not selected)
	 */
	private static List<String> publishMix(String topic) {
		List<String> ids = new ArrayList<>();
		publish(topic, "{\"amount\":50,\"n\":0}", "order.created", "eu-1");
		ids.add(publish(topic, "{\"amount\":150,\"n\":1}", "order.created", "eu-1"));
		publish(topic, "{\"amount\":150,\"n\":2}", "invoice.paid", "eu-1");
		publish(topic, "{\"amount\":150,\"n\":3}", "order.created", "us-1");
		publish(topic, "{\"amount\":\"much\",\"n\":4}", "order.created", "eu-2");
		ids.add(publish(topic, "{\"amount\":300,\"n\":5}", "order.created", "eu-2"));
		publish(topic, "{\"amount\":300,\"n\":6}", null, "eu-2");
		ids.add(publish(topic, "{\"amount\":101.5,\"n\":7}", "order.cancelled", "eu-3"));
		ids.add(publish(topic, "{\"amount\":1,\"n\":8}", "order.created", "eu-3"));
		return ids;
	}

	private static String publish(String topic, String json, String type, String key) {
		String query = ((type != null) ? "type=" + type : "") + ((type != null && key != null) ? "&" : "")
				+ ((key != null) ? "key=" + key : "");
		String answer = gateway.post("/api/v1/publish/" + topic + (query.isEmpty() ? "" : "?" + query), json, 202);
		return parse(answer).getString("id");
	}

	private static void createEventTopic(String id) {
		gateway.post("/api/v1/topics", "{\"id\":\"" + id + "\"}", 201);
	}

	private static void assertProblem(String body, String type, String... fragments) {
		assertThat(body).contains("\"type\":\"https://streamgate.dev/problems/" + type + "\"").contains(fragments);
	}

	private static String encode(String text) {
		return URLEncoder.encode(text, StandardCharsets.UTF_8);
	}

	private static JsonObject parse(String json) {
		try (JsonReader reader = Json.createReader(new StringReader(json))) {
			return reader.readObject();
		}
	}

	private static List<ConsumerRecord<String, String>> read(String topic) {
		return KafkaRecords.readAll(TestKafka.bootstrapServers(), topic);
	}

}
