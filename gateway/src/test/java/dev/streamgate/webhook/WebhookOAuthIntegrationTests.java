package dev.streamgate.webhook;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import com.standardwebhooks.Webhook;
import jakarta.json.Json;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import dev.streamgate.support.AuthorizationServer;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.TestKafka;

import static dev.streamgate.support.AuthorizationServer.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Webhooks to an endpoint that wants an OAuth 2.0 bearer token of its authorization
 * server (tokens expiring every two seconds) besides the Standard Webhooks signature,
 * which the official library checks.
 */
class WebhookOAuthIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

	private static final String CLIENT_SECRET = "hook-client-secret";

	private static final AuthorizationServer authorization = new AuthorizationServer("gateway", CLIENT_SECRET,
			Duration.ofSeconds(2));

	private static final List<String> delivered = new CopyOnWriteArrayList<>();

	private static final AtomicInteger unauthorized = new AtomicInteger();

	private static final AtomicInteger badSignatures = new AtomicInteger();

	private static DisposableServer endpoint;

	private static RunningGateway gateway;

	@BeforeAll
	static void start() throws Exception {
		Webhook verifier = new Webhook(SECRET);
		endpoint = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.route((routes) -> routes.post("/token", authorization::token)
				.post("/hook", (request,
						response) -> request.receive().aggregate().asString(StandardCharsets.UTF_8).flatMap((body) -> {
							if (!authorization.authorized(request)) {
								unauthorized.incrementAndGet();
								return json(response.status(401), "{\"error\":\"invalid_token\"}");
							}
							Map<String, List<String>> headers = new java.util.HashMap<>();
							request.requestHeaders().forEach((h) -> headers.put(h.getKey(), List.of(h.getValue())));
							try {
								verifier.verify(body, headers);
							}
							catch (Exception ex) {
								badSignatures.incrementAndGet();
								return json(response.status(400), "{}");
							}
							delivered.add(body);
							return json(response, "{}");
						})))
			.bindNow();
		List<String> args = new ArrayList<>(List.of(GatewayKafka.arguments(TestKafka.uniquePrefix())));
		args.add("--streamgate.egress.allowed-cidrs=127.0.0.1/32");
		args.add("--streamgate.webhook.retry-schedule=300ms,300ms,300ms");
		gateway = RunningGateway.start(args.toArray(String[]::new));
	}

	@AfterAll
	static void stop() {
		gateway.close();
		endpoint.disposeNow();
	}

	@Test
	void deliveriesCarryATokenRenewedAsItExpiresAndAfterA401() {
		post("/api/v1/topics", "{\"id\":\"secured\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}",
				201);
		String created = post("/api/v1/topics/secured/webhooks",
				"{\"url\":\"" + url("/hook") + "\",\"secret\":\"" + SECRET + "\"," + oauth2(CLIENT_SECRET) + "}", 201);
		String id = parse(created).asJsonObject().getString("id");
		assertThat(created).doesNotContain(CLIENT_SECRET).contains("\"clientSecret\":\"******\"");
		// 30 or more events 200 ms apart: the token expires every 1.6 s, and is revoked
		// once, right after one was issued, so that the next delivery still sends it.
		int published = 0;
		boolean revoked = false;
		int issued = authorization.tokensIssued();
		while ((published < 30 || !revoked) && published < 100) {
			post("/api/v1/publish/secured", "{\"n\":" + published++ + "}", 202);
			sleep(Duration.ofMillis(200));
			if (!revoked && published >= 10 && authorization.tokensIssued() > issued) {
				authorization.revokeTokens();
				revoked = true;
			}
			issued = authorization.tokensIssued();
		}
		int expected = published;
		await().atMost(WAIT).until(() -> secured().size() >= expected);
		List<Integer> order = secured().stream()
			.map((body) -> parse(body).asJsonObject().getJsonObject("data").getInt("n"))
			.toList();
		assertThat(order).as("each event once, in order")
			.isEqualTo(java.util.stream.IntStream.range(0, expected).boxed().toList());
		assertThat(badSignatures).hasValue(0);
		assertThat(authorization.tokensIssued()).as("tokens for %d deliveries", expected).isBetween(3, expected / 3);
		assertThat(unauthorized.get()).as("401s: the revoked token's").isBetween(1, 2);
		assertThat(authorization.requests())
			.allSatisfy((form) -> assertThat(form).containsEntry("grant_type", "client_credentials")
				.containsEntry("scope", "hooks"));
		// Neither the client secret nor a token is in what the API shows.
		String read = get("/api/v1/topics/secured/webhooks/" + id);
		assertThat(read).doesNotContain(CLIENT_SECRET).contains("\"clientSecret\":\"******\"");
		String attempts = get("/api/v1/topics/secured/webhooks/" + id + "/attempts?limit=100");
		assertThat(attempts).doesNotContain(CLIENT_SECRET).doesNotContain("t-1");
	}

	@Test
	void refusedCredentialsFailAttemptsThatSayWhy() {
		post("/api/v1/topics", "{\"id\":\"refused\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}",
				201);
		String id = parse(post("/api/v1/topics/refused/webhooks",
				"{\"url\":\"" + url("/hook") + "\",\"secret\":\"" + SECRET + "\"," + oauth2("wrong-secret") + "}", 201))
			.asJsonObject()
			.getString("id");
		post("/api/v1/publish/refused", "{\"n\":1}", 202);
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(get("/api/v1/topics/refused/webhooks/" + id + "/attempts"))
				.contains("no access token: The token endpoint refused the client credentials: invalid_client")
				.doesNotContain("wrong-secret"));
		// Fixed credentials, merged into the stored ones: deliveries go through.
		patch("/api/v1/topics/refused/webhooks/" + id, "{\"oauth2\":{\"clientSecret\":\"" + CLIENT_SECRET + "\"}}",
				200);
		post("/api/v1/publish/refused", "{\"n\":2}", 202);
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(delivered)
				.as(() -> get("/api/v1/topics/refused/webhooks/" + id) + "\n"
						+ get("/api/v1/topics/refused/webhooks/" + id + "/attempts?limit=100"))
				.anyMatch((body) -> body.contains("\"topic\":\"refused\"")));
	}

	@Test
	void badCredentialsAreRefusedNamingTheField() {
		post("/api/v1/topics", "{\"id\":\"checked\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}",
				201);
		String base = "/api/v1/topics/checked/webhooks";
		String hook = "\"url\":\"" + url("/hook") + "\",";
		assertThat(post(base, "{" + hook + "\"oauth2\":{\"tokenUrl\":\"" + url("/token") + "\"}}", 400))
			.contains("/oauth2/clientId")
			.contains("/oauth2/clientSecret");
		assertThat(post(base, "{" + hook + "\"oauth2\":{\"tokenUrl\":\"http://127.0.0.2:9/t\",\"clientId\":\"a\","
				+ "\"clientSecret\":\"b\"}}", 400))
			.contains("/oauth2/tokenUrl");
		assertThat(post(base, "{" + hook + "\"oauth2\":\"yes\"}", 400)).contains("\"pointer\":\"/oauth2\"");
		assertThat(post(base,
				"{" + hook + "\"oauth2\":{\"tokenUrl\":\"" + url("/token")
						+ "\",\"clientId\":\"a\",\"clientSecret\":\"b\",\"authentication\":\"private_key_jwt\"}}",
				400))
			.contains("/oauth2");
		String id = parse(post(base, "{" + hook + oauth2(CLIENT_SECRET) + "}", 201)).asJsonObject().getString("id");
		// A secret sent back masked stays; moving the token URL needs it again.
		patch(base + "/" + id, "{\"oauth2\":{\"clientSecret\":\"******\",\"scope\":\"other\"}}", 200);
		assertThat(get(base + "/" + id)).contains("\"scope\":\"other\"");
		patch(base + "/" + id, "{\"oauth2\":{\"tokenUrl\":\"" + url("/token?moved") + "\"}}", 400);
		patch(base + "/" + id, "{\"oauth2\":null}", 200);
		assertThat(parse(get(base + "/" + id)).asJsonObject()).doesNotContainKey("oauth2");
	}

	private static List<String> secured() {
		return delivered.stream().filter((body) -> body.contains("\"topic\":\"secured\"")).toList();
	}

	private static String oauth2(String secret) {
		return "\"oauth2\":{\"tokenUrl\":\"" + url("/token") + "\",\"clientId\":\"gateway\",\"clientSecret\":\""
				+ secret + "\",\"scope\":\"hooks\"}";
	}

	private static String url(String path) {
		return "http://127.0.0.1:" + endpoint.port() + path;
	}

	private static String post(String uri, String json, int status) {
		return gateway.post(uri, json, status);
	}

	private static void patch(String uri, String json, int status) {
		gateway.client()
			.patch()
			.uri(uri)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(json)
			.exchange()
			.expectStatus()
			.isEqualTo(status);
	}

	private static String get(String uri) {
		return gateway.get(uri);
	}

	private static JsonValue parse(String json) {
		try (JsonReader reader = Json.createReader(new StringReader(json))) {
			return reader.readValue();
		}
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
