package dev.streamgate.security;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;

import dev.streamgate.support.JdkWebSocket;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.Sse;
import dev.streamgate.support.TestKafka;
import dev.streamgate.support.Tokens;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tokens refreshed on open connections: a {@code token-expiring} notice before the token
 * expires on streams and WebSockets, and a WebSocket {@code refresh} message that
 * replaces the token without closing the connection, its grants checked again.
 */
class TokenRefreshIntegrationTests {

	private static final String SECRET = "a-refresh-test-secret-of-at-least-32-bytes";

	private static final Map<String, Object> ADMIN = Map.of("admin", true);

	private static final Map<String, Object> BOTH = Map.of("subscribe", List.of("quotes", "trades"));

	private static final Duration WAIT = Duration.ofSeconds(10);

	private static RunningGateway gateway;

	@BeforeAll
	static void start() {
		gateway = RunningGateway.start("--server.port=0",
				"--spring.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
				"--streamgate.kafka.topic-prefix=" + TestKafka.uniquePrefix(),
				"--streamgate.security.jwt.secret=" + SECRET, "--streamgate.security.token-expiring-notice=2s");
		for (String topic : List.of("quotes", "trades")) {
			post("/api/v1/topics", "{\"id\":\"" + topic + "\"}", 201);
		}
	}

	@AfterAll
	static void stop() {
		gateway.close();
	}

	private static String token(Map<String, Object> rights, Duration life) {
		return Tokens.hs256(SECRET, rights, Instant.now().plus(life));
	}

	private static void publish(String topic, String json) {
		post("/api/v1/publish/" + topic, json, 202);
	}

	private static void post(String uri, String json, int status) {
		gateway.client()
			.post()
			.uri(uri)
			.header(HttpHeaders.AUTHORIZATION, "Bearer " + token(ADMIN, Duration.ofHours(1)))
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(json)
			.exchange()
			.expectStatus()
			.isEqualTo(status);
	}

	private static JdkWebSocket socket(String token) {
		return JdkWebSocket.connect(gateway.baseUrl().replace("http", "ws") + "/api/v1/ws?access_token=" + token);
	}

	/** The next message of a type, skipping the others (the topic's events). */
	private static JsonObject next(JdkWebSocket socket, String type) throws InterruptedException {
		long end = System.nanoTime() + WAIT.toNanos();
		while (System.nanoTime() < end) {
			JsonObject message = socket.next(Duration.ofMillis(200));
			if (message != null && type.equals(message.getString("type"))) {
				return message;
			}
		}
		throw new AssertionError("no '" + type + "' message within " + WAIT);
	}

	@Test
	void aStreamIsToldBeforeItsTokenExpiresWithoutMovingItsCursor() {
		String shortLived = token(BOTH, Duration.ofSeconds(5));
		long opened = System.nanoTime();
		List<Long> arrivals = new ArrayList<>();
		List<ServerSentEvent<String>> events = new Sse(gateway.baseUrl())
			.stream("/api/v1/stream/quotes?access_token=" + shortLived, null)
			.doOnNext((event) -> arrivals.add(System.nanoTime() - opened))
			.collectList()
			.block(Duration.ofSeconds(30));
		assertThat(events).extracting(ServerSentEvent::event).containsSubsequence("token-expiring", "problem");
		int notice = events.stream().map(ServerSentEvent::event).toList().indexOf("token-expiring");
		ServerSentEvent<String> expiring = events.get(notice);
		assertThat(expiring.id()).isNull();
		assertThat(expiring.data()).startsWith("{\"expiresAt\":\"");
		// Two seconds before the expiry, which ends the stream.
		long before = arrivals.get(arrivals.size() - 1) - arrivals.get(notice);
		assertThat(Duration.ofNanos(before)).isBetween(Duration.ofMillis(1500), Duration.ofMillis(2600));
		assertThat(events.get(events.size() - 1).data()).contains("token-expired");
	}

	@Test
	void aWebSocketTakesAFreshTokenAndOutlivesTheFirst() throws Exception {
		try (JdkWebSocket socket = socket(token(BOTH, Duration.ofSeconds(4)))) {
			socket.send("{\"subscribe\":{\"topic\":\"quotes\"}}");
			JsonObject expiring = next(socket, "token-expiring");
			assertThat(expiring.isNull("topic")).isTrue();
			assertThat(expiring.getJsonObject("data").getString("expiresAt")).isNotBlank();
			socket.send("{\"refresh\":{\"token\":\"" + token(BOTH, Duration.ofMinutes(10)) + "\"}}");
			JsonObject refreshed = next(socket, "token-refreshed");
			assertThat(Instant.parse(refreshed.getJsonObject("data").getString("expiresAt")))
				.isAfter(Instant.now().plusSeconds(500));
			// Past the first token's expiry: still open, still subscribed.
			Thread.sleep(3000);
			assertThat(socket.closed()).isNotDone();
			publish("quotes", "{\"bid\":1.5}");
			JsonObject event = next(socket, "event");
			assertThat(event.getString("topic")).isEqualTo("quotes");
			assertThat(event.getJsonObject("data").getJsonNumber("bid").doubleValue()).isEqualTo(1.5);
			assertThat(Instant.parse(event.getString("time"))).isBetween(Instant.now().minusSeconds(10), Instant.now());
		}
	}

	@Test
	void subscriptionsTheFreshTokenNoLongerGrantsEndWithAProblemAndTheOthersGoOn() throws Exception {
		try (JdkWebSocket socket = socket(token(BOTH, Duration.ofMinutes(5)))) {
			socket.send("{\"subscribe\":{\"topic\":\"quotes\"}}");
			socket.send("{\"subscribe\":{\"topic\":\"trades\"}}");
			publish("quotes", "{\"warm\":1}");
			publish("trades", "{\"warm\":1}");
			next(socket, "event");
			next(socket, "event");
			socket.send("{\"refresh\":{\"token\":\""
					+ token(Map.of("subscribe", List.of("trades")), Duration.ofMinutes(5)) + "\"}}");
			JsonObject problem = next(socket, "problem");
			assertThat(problem.getString("topic")).isEqualTo("quotes");
			assertThat(problem.getJsonObject("data").getString("type")).endsWith("/forbidden");
			next(socket, "token-refreshed");
			publish("quotes", "{\"after\":1}");
			publish("trades", "{\"after\":1}");
			JsonObject event = next(socket, "event");
			assertThat(event.getString("topic")).isEqualTo("trades");
			assertThat(socket.next(Duration.ofSeconds(1))).isNull();
		}
	}

	@Test
	void aRefusedOrForeignTokenIsAProblemAndTheConnectionKeepsItsOwn() throws Exception {
		try (JdkWebSocket socket = socket(token(BOTH, Duration.ofMinutes(5)))) {
			socket.send("{\"subscribe\":{\"topic\":\"quotes\"}}");
			socket.send("{\"refresh\":{\"token\":\"not-a-jwt\"}}");
			JsonObject refused = next(socket, "problem");
			assertThat(refused.isNull("topic")).isTrue();
			assertThat(refused.getJsonObject("data").getString("type")).endsWith("/unauthorized");
			String foreign = Tokens.hs256(SECRET, "someone-else", BOTH, Instant.now().plusSeconds(300));
			socket.send("{\"refresh\":{\"token\":\"" + foreign + "\"}}");
			JsonObject other = next(socket, "problem");
			assertThat(other.getJsonObject("data").getString("type")).endsWith("/forbidden");
			assertThat(other.getJsonObject("data").getString("detail")).contains("someone-else");
			socket.send("{\"refresh\":{}}");
			assertThat(next(socket, "problem").getJsonObject("data").getString("detail")).contains("'token'");
			publish("quotes", "{\"still\":true}");
			assertThat(next(socket, "event").getJsonObject("data").getBoolean("still")).isTrue();
		}
	}

}
