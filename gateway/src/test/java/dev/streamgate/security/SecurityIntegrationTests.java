package dev.streamgate.security;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;
import reactor.netty.http.client.HttpClient;

import dev.streamgate.support.AbortedRequests;
import dev.streamgate.support.JdkWebSocket;
import dev.streamgate.support.RawHttp;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.Tokens;
import dev.streamgate.support.Sse;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tokens per role and per topic, with security on as it is by default.
 */
@ExtendWith(OutputCaptureExtension.class)
class SecurityIntegrationTests {

	private static final String SECRET = "an-hmac-secret-of-at-least-32-bytes-for-hs256";

	private static final Map<String, Object> ADMIN = Map.of("admin", true);

	private static RunningGateway gateway;

	@BeforeAll
	static void start() {
		gateway = RunningGateway.start("--server.port=0",
				"--spring.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
				"--streamgate.kafka.topic-prefix=" + TestKafka.uniquePrefix(),
				"--streamgate.security.jwt.secret=" + SECRET, "--streamgate.sse.max-streams-per-client=3",
				"--streamgate.access-log.enabled=true", "--server.forward-headers-strategy=native",
				"--streamgate.cors.allowed-origins=https://app.example.com");
		for (String topic : List.of("prices", "orders", "orders.eu", "ordersx", "news")) {
			client(token(ADMIN)).post()
				.uri("/api/v1/topics")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"id\":\"" + topic + "\",\"public\":" + topic.equals("news") + "}")
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
	void twoAuthorizationHeadersAreRefusedRatherThanOneTaken() {
		gateway.client()
			.get()
			.uri("/api/v1/topics")
			.header(HttpHeaders.AUTHORIZATION, "Bearer " + token(ADMIN), "Bearer " + token(Map.of()))
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody()
			.jsonPath("$.detail")
			.value((String detail) -> assertThat(detail).contains("2 Authorization headers"));
	}

	@Test
	void aWebSocketAuthenticatedByItsCookieOpensOnlyFromTheGatewaysOwnOrAnAllowedOrigin() throws Exception {
		String cookie = token(Map.of("subscribe", List.of("*")));
		int port = java.net.URI.create(gateway.baseUrl()).getPort();
		assertThat(upgrade(port, "https://evil.example", cookie)).isEqualTo(403);
		assertThat(upgrade(port, "http://localhost:" + (port + 1), cookie)).isEqualTo(403);
		assertThat(upgrade(port, "https://app.example.com", cookie)).isEqualTo(101);
		assertThat(upgrade(port, "http://localhost:" + port, cookie)).isEqualTo(101);
		assertThat(upgrade(port, null, cookie)).as("not a browser: no Origin").isEqualTo(101);
	}

	private static int upgrade(int port, String origin, String cookie) throws java.io.IOException {
		try (RawHttp connection = new RawHttp(port, Duration.ofSeconds(10))) {
			connection.send("GET /api/v1/ws HTTP/1.1\r\nHost: localhost:" + port
					+ "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
					+ "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
					+ ((origin != null) ? "Origin: " + origin + "\r\n" : "") + "Cookie: streamgate_token=" + cookie
					+ "\r\n\r\n");
			return connection.readStatus();
		}
	}

	static String token(Map<String, Object> rights) {
		return token(rights, Instant.now().plus(Duration.ofHours(1)), SECRET);
	}

	static String token(Map<String, Object> rights, Instant expires, String secret) {
		return Tokens.hs256(secret, rights, expires);
	}

	private static WebTestClient client(String token) {
		WebTestClient client = gateway.client();
		return (token != null) ? client.mutate().defaultHeader(HttpHeaders.AUTHORIZATION, "Bearer " + token).build()
				: client;
	}

	/** The status of one request of each endpoint family with a token. */
	private static int listTopics(String token) {
		return client(token).get().uri("/api/v1/topics").exchange().returnResult(String.class).getStatus().value();
	}

	private static int createTopic(String token) {
		return client(token).post()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{}")
			.exchange()
			.returnResult(String.class)
			.getStatus()
			.value();
	}

	private static int publish(String token, String topic) {
		return client(token).post()
			.uri("/api/v1/publish/" + topic)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"n\":1}")
			.exchange()
			.returnResult(String.class)
			.getStatus()
			.value();
	}

	private static int openStream(String token, String topic) {
		return streamStatus("/api/v1/stream/" + topic, token, null);
	}

	/** The status of a stream request; a stream that opens is closed at once. */
	private static int streamStatus(String path, String bearer, String cookie) {
		return HttpClient.create().headers((headers) -> {
			headers.set(HttpHeaders.ACCEPT, MediaType.TEXT_EVENT_STREAM_VALUE);
			if (bearer != null) {
				headers.set(HttpHeaders.AUTHORIZATION, "Bearer " + bearer);
			}
			if (cookie != null) {
				headers.set(HttpHeaders.COOKIE, "streamgate_token=" + cookie);
			}
		})
			.get()
			.uri(gateway.baseUrl() + path)
			.response()
			.map((response) -> response.status().code())
			.block(Duration.ofSeconds(30));
	}

	@Test
	void everyEndpointFamilyAnswers401WithoutAToken() {
		assertThat(listTopics(null)).isEqualTo(401);
		assertThat(createTopic(null)).isEqualTo(401);
		assertThat(publish(null, "prices")).isEqualTo(401);
		assertThat(openStream(null, "prices")).isEqualTo(401);
		gateway.client()
			.get()
			.uri("/api/v1/topics/prices/status")
			.exchange()
			.expectStatus()
			.isUnauthorized()
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectHeader()
			.valueEquals(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"streamgate\"")
			.expectBody()
			.jsonPath("$.type")
			.isEqualTo("https://streamgate.dev/problems/unauthorized")
			.jsonPath("$.status")
			.isEqualTo(401);
	}

	@Test
	void invalidExpiredAndExpLessTokensAre401() {
		String forged = token(ADMIN, Instant.now().plus(Duration.ofHours(1)), "another-secret-of-at-least-32-bytes-x");
		String expired = token(ADMIN, Instant.now().minus(Duration.ofHours(1)), SECRET);
		String withoutExp = token(ADMIN, null, SECRET);
		for (String bad : List.of(forged, expired, withoutExp, "not-a-jwt")) {
			client(bad).get()
				.uri("/api/v1/topics")
				.exchange()
				.expectStatus()
				.isUnauthorized()
				.expectHeader()
				.valueEquals(HttpHeaders.WWW_AUTHENTICATE, "Bearer error=\"invalid_token\"")
				.expectBody()
				.jsonPath("$.type")
				.isEqualTo("https://streamgate.dev/problems/unauthorized");
			assertThat(openStream(bad, "news")).as("a bad token is refused even on a public topic").isEqualTo(401);
		}
	}

	@Test
	void tokensForAnotherRoleOrTopicAre403AndTheRightOnesSucceed() {
		String subscriber = token(Map.of("subscribe", List.of("prices")));
		String publisher = token(Map.of("publish", List.of("orders.*")));
		String admin = token(ADMIN);

		assertThat(listTopics(subscriber)).isEqualTo(403);
		assertThat(createTopic(publisher)).isEqualTo(403);
		assertThat(listTopics(admin)).isEqualTo(200);
		// The webhook API is the admin's too, even for a topic's own subscribers and
		// publishers.
		for (String notAdmin : List.of(subscriber, publisher, token(Map.of("subscribe", List.of("*"))))) {
			client(notAdmin).get().uri("/api/v1/topics/prices/webhooks").exchange().expectStatus().isForbidden();
		}
		client(null).get().uri("/api/v1/topics/prices/webhooks").exchange().expectStatus().isUnauthorized();
		client(admin).get().uri("/api/v1/topics/prices/webhooks").exchange().expectStatus().isOk();

		assertThat(publish(subscriber, "prices")).isEqualTo(403);
		assertThat(publish(publisher, "prices")).isEqualTo(403);
		assertThat(publish(publisher, "ordersx")).as("orders.* needs the dot").isEqualTo(403);
		assertThat(publish(publisher, "orders.eu")).isEqualTo(202);
		assertThat(publish(publisher, "orders")).as("orders.* covers orders itself").isEqualTo(202);
		assertThat(publish(admin, "prices")).isEqualTo(202);

		assertThat(openStream(publisher, "prices")).isEqualTo(403);
		assertThat(openStream(subscriber, "orders.eu")).isEqualTo(403);
		assertThat(openStream(subscriber, "prices")).isEqualTo(200);
		assertThat(openStream(admin, "orders.eu")).isEqualTo(200);

		client(subscriber).get()
			.uri("/api/v1/topics/prices")
			.exchange()
			.expectStatus()
			.isForbidden()
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody()
			.jsonPath("$.type")
			.isEqualTo("https://streamgate.dev/problems/forbidden");
	}

	@Test
	void publicTopicsStreamWithoutATokenButTakeNoAnonymousPublication() {
		assertThat(openStream(null, "news")).isEqualTo(200);
		assertThat(publish(null, "news")).isEqualTo(401);
		assertThat(openStream(null, "prices")).isEqualTo(401);
	}

	@Test
	void streamsTakeTheTokenAsQueryParameterOrCookieAndNothingElseDoes() {
		String subscriber = token(Map.of("subscribe", List.of("prices")));
		WebTestClient anonymous = gateway.client();
		List<ServerSentEvent<String>> byQuery = new Sse(gateway.baseUrl()).takeAfter(
				"/api/v1/stream/prices?access_token=" + subscriber, null, 1, () -> publish(token(ADMIN), "prices"));
		assertThat(byQuery).singleElement().satisfies((event) -> assertThat(event.event()).isEqualTo("event"));
		assertThat(streamStatus("/api/v1/stream/prices", null, subscriber)).isEqualTo(200);
		assertThat(streamStatus("/api/v1/stream/prices", null, "not-a-jwt")).isEqualTo(401);
		// Only streams take these: elsewhere a token in a URL would end up in logs and
		// histories.
		anonymous.get().uri("/api/v1/topics?access_token=" + token(ADMIN)).exchange().expectStatus().isUnauthorized();
		anonymous.get()
			.uri("/api/v1/topics")
			.cookie("streamgate_token", token(ADMIN))
			.exchange()
			.expectStatus()
			.isUnauthorized();
	}

	@Test
	void aStreamOfSeveralTopicsNeedsEachOfThemGranted() {
		String subscriber = token(Map.of("subscribe", List.of("prices")));
		assertThat(streamStatus("/api/v1/stream?topic=prices&topic=news", subscriber, null)).isEqualTo(200);
		assertThat(streamStatus("/api/v1/stream?topic=prices&topic=news", null, subscriber)).isEqualTo(200);
		assertThat(streamStatus("/api/v1/stream?topic=news&access_token=" + subscriber, null, null)).isEqualTo(200);
		assertThat(streamStatus("/api/v1/stream?topic=news", null, null)).as("public").isEqualTo(200);
		assertThat(streamStatus("/api/v1/stream?topic=prices&topic=news", "not-a-jwt", null)).isEqualTo(401);
		gateway.client()
			.get()
			.uri("/api/v1/stream?topic=news&topic=prices")
			.accept(MediaType.TEXT_EVENT_STREAM)
			.exchange()
			.expectStatus()
			.isUnauthorized()
			.expectHeader()
			.valueEquals(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"streamgate\"")
			.expectBody()
			.jsonPath("$.type")
			.isEqualTo("https://streamgate.dev/problems/unauthorized");
		client(subscriber).get()
			.uri("/api/v1/stream?topic=prices&topic=orders.eu")
			.accept(MediaType.TEXT_EVENT_STREAM)
			.exchange()
			.expectStatus()
			.isForbidden()
			.expectBody()
			.jsonPath("$.detail")
			.value((detail) -> assertThat(detail.toString()).contains("orders.eu"));

		String shortLived = token(Map.of("subscribe", List.of("prices")), Instant.now().plusSeconds(3), SECRET);
		List<ServerSentEvent<String>> events = new Sse(gateway.baseUrl())
			.stream("/api/v1/stream?topic=prices&topic=news&access_token=" + shortLived, null)
			.collectList()
			.block(Duration.ofSeconds(30));
		assertThat(events).last().satisfies((event) -> {
			assertThat(event.event()).isEqualTo("problem");
			assertThat(event.data()).startsWith("{\"data\":").contains("https://streamgate.dev/problems/token-expired");
		});
	}

	@Test
	void aStreamEndsWithAnErrorEventWhenItsTokenExpires() {
		String shortLived = token(Map.of("subscribe", List.of("prices")), Instant.now().plusSeconds(3), SECRET);
		List<ServerSentEvent<String>> events = new Sse(gateway.baseUrl())
			.stream("/api/v1/stream/prices?access_token=" + shortLived, null)
			.collectList()
			.block(Duration.ofSeconds(30));
		assertThat(events).last().satisfies((event) -> {
			assertThat(event.event()).isEqualTo("problem");
			assertThat(event.data()).contains("https://streamgate.dev/problems/token-expired");
		});
	}

	@Test
	void aStreamWhoseTopicIsDeletedEndsWithTopicDeletedAndNotTokenExpired() {
		client(token(ADMIN)).post()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"id\":\"doomed\"}")
			.exchange()
			.expectStatus()
			.isCreated();
		String subscriber = token(Map.of("subscribe", List.of("doomed")));
		// Two events asked: the stream must end after one.
		List<ServerSentEvent<String>> events = new Sse(gateway.baseUrl()).takeAfter(
				"/api/v1/stream/doomed?access_token=" + subscriber, null, 2,
				() -> client(token(ADMIN)).delete()
					.uri("/api/v1/topics/doomed")
					.exchange()
					.expectStatus()
					.isNoContent());
		assertThat(events).singleElement().satisfies((event) -> {
			assertThat(event.event()).isEqualTo("problem");
			assertThat(event.data()).contains("https://streamgate.dev/problems/topic-deleted");
		});
	}

	@Test
	void aClientGets429PastItsStreamLimit() {
		String subscriber = token(Map.of("subscribe", List.of("*")));
		Sse sse = new Sse(gateway.baseUrl());
		List<reactor.core.Disposable> open = Flux.range(0, 3)
			.map((i) -> sse.all("/api/v1/stream/prices?access_token=" + subscriber, null).subscribe())
			.collectList()
			.block();
		try {
			org.awaitility.Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> openStream(subscriber, "prices") == 429);
			client(subscriber).get()
				.uri("/api/v1/stream/prices")
				.accept(MediaType.TEXT_EVENT_STREAM)
				.exchange()
				.expectStatus()
				.isEqualTo(429)
				.expectHeader()
				.exists(HttpHeaders.RETRY_AFTER)
				.expectBody()
				.jsonPath("$.type")
				.isEqualTo("https://streamgate.dev/problems/too-many-requests");
		}
		finally {
			open.forEach(reactor.core.Disposable::dispose);
		}
		org.awaitility.Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> openStream(subscriber, "prices") == 200);
	}

	@Test
	void aTokenIsRefusedOnceItsExpiryAndTheSmallClockSkewHavePassed() {
		// Spring's default 60 s skew would accept expired tokens for a minute.
		String expired = token(ADMIN, Instant.now().minusSeconds(10), SECRET);
		assertThat(listTopics(expired)).isEqualTo(401);
		assertThat(listTopics(token(ADMIN, Instant.now().plusSeconds(30), SECRET))).isEqualTo(200);
	}

	@Test
	void streamsAbortedDuringTheTokenCheckAreNotCountedForever() throws Exception {
		// A connection closed while its token is being checked must not leave its stream
		// counted for ever (3 aborted requests would lock the address out with 429).
		String subscriber = token(Map.of("subscribe", List.of("*")));
		AbortedRequests.send(gateway.baseUrl(), "/api/v1/stream/prices", subscriber, 300);
		org.awaitility.Awaitility.await()
			.atMost(Duration.ofSeconds(15))
			.until(() -> openStream(subscriber, "prices") == 200);
		org.awaitility.Awaitility.await()
			.atMost(Duration.ofSeconds(15))
			.until(() -> prometheus().lines()
				.filter((line) -> line.startsWith("streamgate_sse_clients{") && line.contains("topic=\"prices\""))
				.allMatch((line) -> line.endsWith(" 0.0")));
	}

	@Test
	void streamLimitsCountTheAddressTheTrustedProxyForwards() {
		String subscriber = token(Map.of("subscribe", List.of("*")));
		List<reactor.core.Disposable> open = Flux.range(0, 3)
			.map((i) -> client(subscriber).get()
				.uri("/api/v1/stream/prices")
				.header("X-Forwarded-For", "203.0.113.7")
				.accept(MediaType.TEXT_EVENT_STREAM)
				.exchange()
				.returnResult(String.class)
				.getResponseBody()
				.subscribe())
			.collectList()
			.block();
		try {
			org.awaitility.Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> forwardedStreamStatus(subscriber, "203.0.113.7") == 429);
			assertThat(forwardedStreamStatus(subscriber, "203.0.113.8")).isEqualTo(200);
		}
		finally {
			open.forEach(reactor.core.Disposable::dispose);
		}
	}

	private static int forwardedStreamStatus(String token, String forwardedFor) {
		return client(token).get()
			.uri("/api/v1/stream/prices")
			.header("X-Forwarded-For", forwardedFor)
			.accept(MediaType.TEXT_EVENT_STREAM)
			.exchange()
			.returnResult(String.class)
			.getStatus()
			.value();
	}

	private static String prometheus() {
		return client(token(ADMIN)).get()
			.uri("/actuator/prometheus")
			.exchange()
			.returnResult(String.class)
			.getResponseBody()
			.collectList()
			.map((parts) -> String.join("", parts))
			.block(Duration.ofSeconds(10));
	}

	@Test
	void tokensNeverAppearInTheLogs(CapturedOutput output) {
		String marked = token(Map.of("subscribe", List.of("prices")));
		new Sse(gateway.baseUrl()).takeAfter("/api/v1/stream/prices?access_token=" + marked, null, 1,
				() -> publish(token(ADMIN), "prices"));
		assertThat(streamStatus("/api/v1/stream/ordersx?access_token=" + marked, null, null)).isEqualTo(403);
		org.awaitility.Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> output.getOut().contains("/api/v1/stream/ordersx?access_token=*** HTTP/1.1\" 403"));
		String signature = marked.substring(marked.lastIndexOf('.') + 1);
		assertThat(output.getAll()).doesNotContain(signature);
	}

	@Test
	void streamsAndWebSocketsAppearInTheAccessLogWhenTheyEndWithTheirDurationAndBytes(CapturedOutput output)
			throws Exception {
		String subscriber = token(Map.of("subscribe", List.of("prices")));
		new Sse(gateway.baseUrl()).takeAfter("/api/v1/stream/prices?access_token=" + subscriber, null, 1,
				() -> publish(token(ADMIN), "prices"));
		try (JdkWebSocket socket = JdkWebSocket
			.connect(gateway.baseUrl().replace("http://", "ws://") + "/api/v1/ws?access_token=" + subscriber)) {
			socket.send("{\"subscribe\":{\"topic\":\"prices\",\"lastEventId\":\"earliest\"}}");
			assertThat(socket.next(Duration.ofSeconds(10))).isNotNull();
		}
		org.awaitility.Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(output.getOut())
				.containsPattern(
						"\"GET /api/v1/stream/prices\\?access_token=\\*\\*\\* HTTP/1.1\" 200 [1-9]\\d* \\d+ ms")
				.containsPattern("\"GET /api/v1/ws\\?access_token=\\*\\*\\* HTTP/1.1\" 101 [1-9]\\d* \\d+ ms"));
	}

	@Test
	void refusalsCarryCorsHeadersSoThatBrowsersCanReadThem() {
		gateway.client()
			.get()
			.uri("/api/v1/topics")
			.header(HttpHeaders.ORIGIN, "https://app.example.com")
			.exchange()
			.expectStatus()
			.isUnauthorized()
			.expectHeader()
			.exists(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN);
		gateway.client()
			.options()
			.uri("/api/v1/stream/prices")
			.header(HttpHeaders.ORIGIN, "https://app.example.com")
			.header(HttpHeaders.ACCESS_CONTROL_REQUEST_METHOD, "GET")
			.header(HttpHeaders.ACCESS_CONTROL_REQUEST_HEADERS, "last-event-id")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.exists(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN);
	}

	@Test
	void answersAcceptedRefusedOrStreamedCarryTheSecurityHeadersOnce() {
		HttpHeaders published = client(token(Map.of("publish", List.of("prices")))).post()
			.uri("/api/v1/publish/prices")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"n\":1}")
			.exchange()
			.expectStatus()
			.isAccepted()
			.returnResult(String.class)
			.getResponseHeaders();
		HttpHeaders refused = client(null).get()
			.uri("/api/v1/topics")
			.exchange()
			.expectStatus()
			.isUnauthorized()
			.returnResult(String.class)
			.getResponseHeaders();
		HttpHeaders missing = client(token(ADMIN)).get()
			.uri("/api/v1/topics/absent")
			.exchange()
			.expectStatus()
			.isNotFound()
			.returnResult(String.class)
			.getResponseHeaders();
		HttpHeaders streamed = client(null).get()
			.uri("/api/v1/stream/news")
			.accept(MediaType.TEXT_EVENT_STREAM)
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(String.class)
			.getResponseHeaders();
		for (HttpHeaders headers : List.of(published, refused, missing, streamed)) {
			assertThat(headers.get("X-Content-Type-Options")).containsExactly("nosniff");
			assertThat(headers.get("X-Frame-Options")).containsExactly("DENY");
			assertThat(headers.get("X-XSS-Protection")).containsExactly("0");
			assertThat(headers.get("Referrer-Policy")).containsExactly("no-referrer");
		}
	}

	@Test
	void healthProbesTheApiDocumentAndTheConsoleNeedNoToken() {
		gateway.client().get().uri("/actuator/health/readiness").exchange().expectStatus().isOk();
		// A browser pointed at the gateway lands on the console.
		gateway.client()
			.get()
			.uri("/")
			.exchange()
			.expectStatus()
			.isTemporaryRedirect()
			.expectHeader()
			.location("/console/");
		gateway.client().get().uri("/console/").exchange().expectStatus().isOk();
		gateway.client().get().uri("/v3/api-docs").exchange().expectStatus().isOk();
		gateway.client().get().uri("/actuator/env").exchange().expectStatus().isUnauthorized();
	}

}
