package dev.streamgate.stream;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import dev.streamgate.support.TestKafka;
import dev.streamgate.support.JdkWebSocket;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.Tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * WebSocket subscribers ({@code GET /api/v1/ws}) with the JDK's WebSocket client,
 * security on: several topics on one connection, exact resume per topic, refused
 * subscribes as problem messages on a connection that stays usable, a connection that
 * reads nothing closed while another keeps up.
 */
class WebSocketIntegrationTests {

	private static final String SECRET = "an-hmac-secret-of-at-least-32-bytes-for-hs256";

	private static final Duration WAIT = Duration.ofSeconds(20);

	private static RunningGateway gateway;

	@BeforeAll
	static void start() {
		gateway = RunningGateway.start("--server.port=0",
				"--spring.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
				"--streamgate.kafka.topic-prefix=" + TestKafka.uniquePrefix(),
				"--streamgate.security.jwt.secret=" + SECRET, "--streamgate.ws.client-queue=16",
				"--streamgate.memory.client-buffer=2MB", "--streamgate.ingest.max-payload=4MB");
		for (String topic : List.of("ws-a", "ws-b", "ws-c", "ws-public", "ws-firehose", "ws-large")) {
			admin().post()
				.uri("/api/v1/topics")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"id\":\"" + topic + "\",\"public\":" + topic.equals("ws-public") + "}")
				.exchange()
				.expectStatus()
				.isCreated();
		}
	}

	@AfterAll
	static void stop() {
		gateway.close();
	}

	@Test
	void threeTopicsOnOneConnectionEachResumeWithNoGapAndNoDuplicate() throws Exception {
		List<String> topics = List.of("ws-a", "ws-b", "ws-c");
		String url = socketUrl(token(Map.of("subscribe", List.of("ws-*"))));
		Map<String, String> lastIds = new HashMap<>();
		try (JdkWebSocket socket = JdkWebSocket.connect(url)) {
			topics.forEach((topic) -> subscribe(socket, topic, null));
			Thread.sleep(500);
			publishEach(topics, 0, 5);
			Map<String, List<Integer>> received = receive(socket, 15, lastIds);
			topics.forEach((topic) -> assertThat(received.get(topic)).containsExactly(0, 1, 2, 3, 4));
		}
		// Published while no connection was open.
		publishEach(topics, 5, 10);
		try (JdkWebSocket socket = JdkWebSocket.connect(url)) {
			topics.forEach((topic) -> subscribe(socket, topic, lastIds.get(topic)));
			Map<String, List<Integer>> received = receive(socket, 15, lastIds);
			topics.forEach((topic) -> assertThat(received.get(topic)).containsExactly(5, 6, 7, 8, 9));
			assertThat(socket.next(Duration.ofMillis(500))).as("nothing twice").isNull();
		}
	}

	@Test
	void eachRefusedSubscribeIsAProblemMessageAndTheConnectionStaysUsable() throws Exception {
		try (JdkWebSocket anonymous = JdkWebSocket.connect(socketUrl(null))) {
			subscribe(anonymous, "ws-a", null);
			assertProblem(anonymous.next(WAIT), "ws-a", 401, "unauthorized");
			subscribe(anonymous, "ws-public", null);
			Thread.sleep(500);
			publish("ws-public", "{\"n\":1}");
			JsonObject event = anonymous.next(WAIT);
			assertThat(event.getString("topic")).isEqualTo("ws-public");
			assertThat(event.getString("type")).isEqualTo("event");
			assertThat(event.getJsonObject("data").getInt("n")).isEqualTo(1);
		}
		try (JdkWebSocket socket = JdkWebSocket.connect(socketUrl(token(Map.of("subscribe", List.of("ws-a")))))) {
			subscribe(socket, "ws-b", null);
			assertProblem(socket.next(WAIT), "ws-b", 403, "forbidden");
			subscribe(socket, "ws-missing", null);
			assertProblem(socket.next(WAIT), "ws-missing", 404, "topic-not-found");
			socket.send("{\"subscribe\":{\"topic\":\"ws-a\",\"mode\":\"snapshot-only\"}}");
			assertProblem(socket.next(WAIT), "ws-a", 406, "mode-not-allowed");
			subscribe(socket, "ws-a", "not-a-cursor");
			assertProblem(socket.next(WAIT), "ws-a", 400, "invalid-cursor");
			socket.send("{\"subscribe\":");
			assertProblem(socket.next(WAIT), null, 400, "malformed-json");
			socket.send("{\"hello\":1}");
			assertProblem(socket.next(WAIT), null, 400, "bad-request");
			subscribe(socket, "ws-a", null);
			Thread.sleep(500);
			publish("ws-a", "{\"n\":42}");
			JsonObject event = socket.next(WAIT);
			assertThat(event.getString("topic")).isEqualTo("ws-a");
			assertThat(event.getJsonObject("data").getInt("n")).isEqualTo(42);
			assertThat(event.getString("id")).isNotBlank();
			socket.send("{\"unsubscribe\":{\"topic\":\"ws-a\"}}");
			Thread.sleep(500);
			publish("ws-a", "{\"n\":43}");
			assertThat(socket.next(Duration.ofSeconds(1))).as("nothing after unsubscribe").isNull();
		}
	}

	@Test
	void aConnectionThatReadsNothingIsClosedWhileAnotherOnTheSameTopicKeepsUp() throws Exception {
		int events = 1000;
		String padding = "x".repeat(20_000);
		String url = socketUrl(token(Map.of("subscribe", List.of("ws-firehose"))));
		try (JdkWebSocket stalled = JdkWebSocket.connectStalled(url);
				JdkWebSocket reading = JdkWebSocket.connect(url)) {
			subscribe(stalled, "ws-firehose", null);
			subscribe(reading, "ws-firehose", null);
			Thread.sleep(500);
			// Ten at a time, each ten read before the next are published: the reader
			// never
			// has more than its queue (16) waiting, however slow a busy machine makes it,
			// while the stalled connection is left 20 MB behind.
			int batch = 10;
			for (int first = 0; first < events; first += batch) {
				int from = first;
				publish("ws-firehose",
						String.join("\n",
								IntStream.range(from, from + batch)
									.mapToObj((i) -> "{\"n\":" + i + ",\"pad\":\"" + padding + "\"}")
									.toList()));
				for (int n = from; n < from + batch; n++) {
					JsonObject message = reading.next(WAIT);
					assertThat(message)
						.as("event " + n + " (the reader's close code: " + reading.closed().getNow(null) + ")")
						.isNotNull();
					assertThat(message.getJsonObject("data").getInt("n")).isEqualTo(n);
				}
			}
			await().atMost(WAIT)
				.untilAsserted(() -> assertThat(metrics())
					.containsPattern("streamgate_ws_disconnects_total\\{.*reason=\"slow\".*\\} [1-9]"));
		}
	}

	private static Map<String, List<Integer>> receive(JdkWebSocket socket, int count, Map<String, String> lastIds)
			throws InterruptedException {
		Map<String, List<Integer>> received = new HashMap<>();
		for (int i = 0; i < count; i++) {
			JsonObject message = socket.next(WAIT);
			assertThat(message).as("message " + i + " of " + count).isNotNull();
			assertThat(message.getString("type")).isEqualTo("event");
			String topic = message.getString("topic");
			received.computeIfAbsent(topic, (t) -> new ArrayList<>()).add(message.getJsonObject("data").getInt("n"));
			lastIds.put(topic, message.getString("id"));
		}
		return received;
	}

	private static void assertProblem(JsonObject message, String topic, int status, String type) {
		assertThat(message).as("a problem message").isNotNull();
		assertThat(message.getString("type")).isEqualTo("problem");
		if (topic != null) {
			assertThat(message.getString("topic")).isEqualTo(topic);
		}
		JsonObject problem = message.getJsonObject("data");
		assertThat(problem.getInt("status")).isEqualTo(status);
		assertThat(problem.getString("type")).endsWith("/" + type);
		assertThat(problem.getString("detail")).isNotBlank();
	}

	private static void subscribe(JdkWebSocket socket, String topic, String lastEventId) {
		socket.send("{\"subscribe\":{\"topic\":\"" + topic + "\""
				+ ((lastEventId != null) ? ",\"lastEventId\":\"" + lastEventId + "\"" : "") + "}}");
	}

	private static void publishEach(List<String> topics, int from, int to) {
		for (int n = from; n < to; n++) {
			for (String topic : topics) {
				publish(topic, "{\"n\":" + n + "}");
			}
		}
	}

	private static void publish(String topic, String body) {
		admin().post()
			.uri("/api/v1/publish/" + topic)
			.contentType(MediaType.parseMediaType("application/x-ndjson"))
			.bodyValue(body)
			.exchange()
			.expectStatus()
			.isAccepted();
	}

	@Test
	void aConnectionThatReadsNothingIsClosedByTheBytesItHoldsNotByItsMessageCount() throws Exception {
		// 15 events of 900 KB: fewer than the 16 a queue holds, far more than the 2 MB a
		// connection may hold (streamgate.memory.client-buffer) and than the loopback
		// socket's buffers take.
		int events = 15;
		String padding = "x".repeat(900 * 1024);
		String url = socketUrl(token(Map.of("subscribe", List.of("ws-large"))));
		double before = slowDisconnects();
		try (JdkWebSocket stalled = JdkWebSocket.connectStalled(url);
				JdkWebSocket reading = JdkWebSocket.connect(url)) {
			subscribe(stalled, "ws-large", null);
			subscribe(reading, "ws-large", null);
			Thread.sleep(500);
			for (int n = 0; n < events; n++) {
				publish("ws-large", "{\"n\":" + n + ",\"pad\":\"" + padding + "\"}");
				JsonObject message = reading.next(WAIT);
				assertThat(message).as("event " + n).isNotNull();
				assertThat(message.getJsonObject("data").getInt("n")).isEqualTo(n);
			}
			await().atMost(WAIT).until(() -> slowDisconnects() > before);
		}
	}

	@Test
	void aConnectionWhoseTokenExpiresIsClosedWith4401NotDropped() throws Exception {
		String expiring = Tokens.hs256(SECRET, Map.of("subscribe", List.of("ws-a")),
				Instant.now().plus(Duration.ofSeconds(3)));
		try (JdkWebSocket socket = JdkWebSocket.connect(socketUrl(expiring))) {
			subscribe(socket, "ws-a", null);
			assertThat(socket.closed().get(20, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(4401);
		}
	}

	private static double slowDisconnects() {
		Matcher matcher = Pattern.compile("streamgate_ws_disconnects_total\\{[^}]*reason=\"slow\"[^}]*\\} ([0-9.E+-]+)")
			.matcher(metrics());
		return matcher.find() ? Double.parseDouble(matcher.group(1)) : 0;
	}

	private static String metrics() {
		return gateway.client()
			.get()
			.uri("/actuator/prometheus")
			.exchange()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
	}

	private static String socketUrl(String token) {
		return gateway.baseUrl().replace("http://", "ws://") + "/api/v1/ws"
				+ ((token != null) ? "?access_token=" + token : "");
	}

	private static WebTestClient admin() {
		return gateway.client()
			.mutate()
			.defaultHeader(HttpHeaders.AUTHORIZATION, "Bearer " + token(Map.of("admin", true)))
			.build();
	}

	private static String token(Map<String, Object> rights) {
		return Tokens.hs256(SECRET, rights, Instant.now().plus(Duration.ofHours(1)));
	}

}
