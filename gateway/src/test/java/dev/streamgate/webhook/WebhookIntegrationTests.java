package dev.streamgate.webhook;

import java.io.StringReader;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;

import dev.streamgate.bench.sink.WebhookSink;
import dev.streamgate.bench.sink.WebhookSink.Received;
import dev.streamgate.support.Cursors;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.ProblemAssertions;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Webhook registration and delivery over real HTTP and Kafka, received by a sink that
 * checks every signature with the official Standard Webhooks library.
 */
class WebhookIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

	private static WebhookSink sink;

	private static RunningGateway gateway;

	@BeforeAll
	static void start() {
		sink = WebhookSink.start("127.0.0.1", 0);
		List<String> args = new ArrayList<>(List.of(GatewayKafka.arguments(TestKafka.uniquePrefix())));
		// The sink listens on 127.0.0.1; other loopback addresses stay refused.
		args.add("--streamgate.egress.allowed-cidrs=127.0.0.1/32");
		// Seconds instead of hours: ten retries 300 ms apart, disabled after 6 s of
		// failures.
		args.add("--streamgate.webhook.retry-schedule=300ms,300ms,300ms,300ms,300ms,300ms,300ms,300ms,300ms,300ms");
		args.add("--streamgate.webhook.disable-after=6s");
		args.add("--streamgate.webhook.timeout=2s");
		args.add("--streamgate.webhook.max-per-topic=5");
		gateway = RunningGateway.start(args.toArray(String[]::new));
	}

	@AfterAll
	static void stop() {
		gateway.close();
		sink.close();
	}

	@Test
	void deliveriesAreSignedEnvelopesInTopicOrderWithTheRegisteredHeaders() {
		createEventTopic("orders");
		sink.endpoint("orders", SECRET);
		String body = post("/api/v1/topics/orders/webhooks", "{\"url\":\"" + sink.url("orders") + "\",\"secret\":\""
				+ SECRET + "\",\"headers\":{\"X-Team\":\"quant\"},\"description\":\"quant desk\"}", 201);
		JsonObject created = parse(body).asJsonObject();
		assertThat(created.getString("id")).startsWith("wh_");
		assertThat(created.getString("status")).isEqualTo("active");
		assertThat(created.getString("secret")).isEqualTo(SECRET);
		assertThat(created.getString("mode")).isEqualTo("event");
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			ids.add(publish("orders", "{\"n\":" + i + "}"));
		}
		List<Received> received = awaitAccepted("orders", 20);
		assertThat(received).hasSize(20).allSatisfy((delivery) -> {
			assertThat(delivery.signatureValid()).as("signature verified by the official library").isTrue();
			assertThat(delivery.headers()).containsEntry("x-team", "quant")
				.containsEntry("content-type", "application/json")
				.containsKey("webhook-timestamp");
			assertThat(delivery.headers().get("user-agent")).startsWith("streamgate-webhook/1");
		});
		for (int i = 0; i < 20; i++) {
			JsonObject envelope = parse(received.get(i).body()).asJsonObject();
			assertThat(envelope.getString("type")).isEqualTo("event");
			assertThat(envelope.getString("topic")).isEqualTo("orders");
			assertThat(envelope.getString("id")).isEqualTo(ids.get(i));
			assertThat(Instant.parse(envelope.getString("timestamp"))).isBefore(Instant.now().plusSeconds(1));
			assertThat(envelope.getJsonObject("data").getInt("n")).isEqualTo(i);
			assertThat(received.get(i).webhookId()).isEqualTo("msg_orders_" + ids.get(i));
		}
		// The secret is shown at registration only.
		String id = created.getString("id");
		String fetched = get("/api/v1/topics/orders/webhooks/" + id, 200);
		assertThat(parse(fetched).asJsonObject()).doesNotContainKey("secret");
		// Custom headers are write-only too, and a PATCH sending them back
		// masked keeps them.
		assertThat(parse(fetched).asJsonObject().getJsonObject("headers").getString("X-Team")).isEqualTo("******");
		await().atMost(WAIT)
			.until(() -> parse(get("/api/v1/topics/orders/webhooks/" + id, 200)).asJsonObject()
				.getJsonObject("delivery")
				.getString("cursor")
				.equals(ids.get(19)));
		assertThat(get("/api/v1/topics/orders/status", 200))
			.contains("\"webhooks\":{\"active\":1,\"disabled\":0,\"failing\":0}");
		assertThat(metric("streamgate_webhook_deliveries_total", "outcome=\"delivered\"", "topic=\"orders\""))
			.isGreaterThanOrEqualTo(20);
		assertThat(metric("streamgate_webhook_delivery_latency_seconds_count", "topic=\"orders\""))
			.isGreaterThanOrEqualTo(20);
	}

	@Test
	void aSnapshotPatchWebhookStartsWithTheCurrentDocumentAndRebuildsEveryVersion() {
		post("/api/v1/topics",
				"{\"id\":\"prices\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-post\"}}", 201);
		String first = publish("prices", "{\"eur\":1,\"usd\":1}");
		String id = register("prices", "prices", "");
		register("prices", "prices-whole", ",\"mode\":\"snapshot-only\"");
		List<String> versions = List.of("{\"eur\":2,\"usd\":1}", "{\"eur\":2,\"usd\":3,\"gbp\":[1]}",
				"{\"usd\":3,\"gbp\":[1,2]}");
		versions.forEach((version) -> publish("prices", version));
		List<Received> received = awaitAccepted("prices", 4);
		assertThat(received.get(0).type()).isEqualTo("snapshot");
		// The webhook starts at the position the topic had reached, the publication's
		// commit marker included when it was written in a transaction: the same
		// incarnation, at or after the first publication.
		String incarnation = first.substring(0, first.indexOf(':') + 1);
		assertThat(received.get(0).webhookId()).startsWith("msg_prices_" + incarnation).endsWith("_snapshot");
		long startedAt = Long.parseLong(received.get(0)
			.webhookId()
			.substring(("msg_prices_" + incarnation).length(), received.get(0).webhookId().length() - 9));
		assertThat(startedAt).isBetween(Long.parseLong(Cursors.offsets(first)),
				Long.parseLong(Cursors.offsets(first)) + 1);
		JsonStructure document = (JsonStructure) parse(received.get(0).body()).asJsonObject().get("data");
		assertThat(document).isEqualTo(parse("{\"eur\":1,\"usd\":1}"));
		for (int i = 1; i < 4; i++) {
			JsonObject envelope = parse(received.get(i).body()).asJsonObject();
			assertThat(envelope.getString("type")).isEqualTo("patch");
			document = Json.createPatch(envelope.getJsonArray("data")).apply(document);
			assertThat(document).isEqualTo(parse(versions.get(i - 1)));
		}
		assertThat(id).startsWith("wh_");
		// snapshot-only: the whole document every time.
		List<Received> whole = awaitAccepted("prices-whole", 4);
		assertThat(whole).extracting(Received::type).containsOnly("snapshot");
		assertThat(whole.subList(1, 4)).extracting((r) -> parse(r.body()).asJsonObject().get("data"))
			.containsExactly(parse(versions.get(0)), parse(versions.get(1)), parse(versions.get(2)));
	}

	@Test
	void anEndpointDownForAWhileGetsEverythingInOrderWhileAnotherIsNotHeldUp() {
		createEventTopic("shared");
		sink.endpoint("down", SECRET).behave("status:503");
		register("shared", "down", "");
		register("shared", "healthy", "");
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			ids.add(publish("shared", "{\"n\":" + i + "}"));
		}
		// The healthy endpoint has everything while the other still fails.
		awaitAccepted("healthy", 10);
		assertThat(sink.endpoint("down").received()).isNotEmpty().noneMatch(Received::accepted);
		await().atMost(WAIT).until(() -> metric("streamgate_webhook_retries_pending") >= 1);
		sink.endpoint("down").behave("ok");
		List<Received> recovered = awaitAccepted("down", 10);
		assertThat(recovered).extracting(WebhookIntegrationTests::dataN).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
		// Every attempt of the first event carried the same webhook-id.
		assertThat(sink.endpoint("down").received().stream().filter((r) -> dataN(r) == 0).map(Received::webhookId))
			.containsOnly("msg_shared_" + ids.get(0));
	}

	@Test
	void goneDisablesTheWebhookWhichResumesFromItsCursorWhenEnabledAgain() {
		createEventTopic("gone");
		String id = register("gone", "gone", "");
		publish("gone", "{\"n\":0}");
		awaitAccepted("gone", 1);
		sink.endpoint("gone").behave("status:410");
		publish("gone", "{\"n\":1}");
		await().atMost(WAIT)
			.until(() -> parse(get("/api/v1/topics/gone/webhooks/" + id, 200)).asJsonObject()
				.getString("status")
				.equals("disabled"));
		JsonObject disabled = parse(get("/api/v1/topics/gone/webhooks/" + id, 200)).asJsonObject();
		assertThat(disabled.getString("disabledReason")).contains("410");
		assertThat(sink.endpoint("gone").received()).hasSize(2);
		publish("gone", "{\"n\":2}");
		sink.endpoint("gone").behave("ok");
		patch("/api/v1/topics/gone/webhooks/" + id, "{\"status\":\"active\"}", 200);
		List<Received> received = awaitAccepted("gone", 3);
		assertThat(received).extracting(WebhookIntegrationTests::dataN).containsExactly(0, 1, 2);
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(get("/api/v1/topics/gone/webhooks/" + id + "/attempts", 200))
				.contains("\"statusCode\":410")
				.contains("\"outcome\":\"disabled\""));
	}

	@Test
	void retryAfterOfA429IsHonoured() {
		createEventTopic("throttled");
		register("throttled", "throttled", "");
		sink.endpoint("throttled").behave("retry-after:429:2");
		publish("throttled", "{\"n\":0}");
		await().atMost(WAIT).until(() -> sink.endpoint("throttled").received().size() >= 1);
		sink.endpoint("throttled").behave("ok");
		List<Received> all = awaitAccepted("throttled", 1);
		List<Received> attempts = sink.endpoint("throttled").received();
		assertThat(attempts).hasSize(2);
		// The schedule says 300 ms; the endpoint asked for 2 s.
		assertThat(attempts.get(1).receivedAt() - attempts.get(0).receivedAt()).isGreaterThanOrEqualTo(1900);
		assertThat(all).hasSize(1);
	}

	@Test
	void anEventThatExhaustsItsScheduleIsRecordedAsFailedAndTheWebhookMovesOn() {
		createEventTopic("exhaust");
		String id = register("exhaust", "exhaust", "");
		sink.endpoint("exhaust").behave("error-body:500");
		String failed = publish("exhaust", "{\"n\":0}");
		// One attempt and ten retries.
		await().atMost(WAIT).until(() -> sink.endpoint("exhaust").received().size() >= 11);
		// The topic's status counts the failing webhook (the console shows it in its
		// list).
		await().atMost(WAIT).until(() -> get("/api/v1/topics/exhaust/status", 200).contains("\"failing\":1"));
		sink.endpoint("exhaust").behave("ok");
		String delivered = publish("exhaust", "{\"n\":1}");
		List<Received> received = awaitAccepted("exhaust", 1);
		assertThat(received).extracting(WebhookIntegrationTests::dataN).containsExactly(1);
		assertThat(sink.endpoint("exhaust").received()).hasSize(12);
		// The attempts log is read back in bulk (a fetch waits for more records up to
		// 1 s): it shows an attempt within a second of it being made.
		String attempts = await().atMost(WAIT)
			.until(() -> get("/api/v1/topics/exhaust/webhooks/" + id + "/attempts?limit=100", 200),
					(body) -> parse(body).asJsonObject().getJsonArray("items").size() == 12);
		JsonObject newest = parse(attempts).asJsonObject().getJsonArray("items").getJsonObject(0);
		assertThat(newest.getString("outcome")).isEqualTo("delivered");
		assertThat(newest.getString("eventId")).isEqualTo("msg_exhaust_" + delivered);
		JsonObject gaveUp = parse(attempts).asJsonObject().getJsonArray("items").getJsonObject(1);
		assertThat(gaveUp.getString("outcome")).isEqualTo("failed");
		assertThat(gaveUp.getInt("attempt")).isEqualTo(11);
		assertThat(gaveUp.getInt("statusCode")).isEqualTo(500);
		assertThat(gaveUp.getString("error")).contains("500");
		// What the endpoint said, cut at 1 KiB: a person debugging the endpoint needs it.
		assertThat(gaveUp.getString("responseBody")).startsWith("{\"error\":\"not today\"}xxx").hasSize(1024);
		assertThat(newest).doesNotContainKey("responseBody");
		assertThat(gaveUp.getString("eventId")).isEqualTo("msg_exhaust_" + failed);
		assertThat(gaveUp.getJsonNumber("durationMs").longValue()).isNotNegative();
		assertThat(parse(attempts).asJsonObject().getJsonArray("items")).hasSize(12);
		await().atMost(WAIT).until(() -> get("/api/v1/topics/exhaust/status", 200).contains("\"failing\":0"));
	}

	@Test
	void aWebhookFailingLongerThanDisableAfterIsDisabledKeepingItsCursor() {
		createEventTopic("failing");
		String id = register("failing", "failing", "");
		publish("failing", "{\"n\":0}");
		awaitAccepted("failing", 1);
		sink.endpoint("failing").behave("status:500");
		for (int i = 1; i <= 6; i++) {
			publish("failing", "{\"n\":" + i + "}");
		}
		await().atMost(WAIT)
			.until(() -> parse(get("/api/v1/topics/failing/webhooks/" + id, 200)).asJsonObject()
				.getString("status")
				.equals("disabled"));
		JsonObject disabled = parse(get("/api/v1/topics/failing/webhooks/" + id, 200)).asJsonObject();
		assertThat(disabled.getString("disabledReason")).contains("disable-after");
		assertThat(metric("streamgate_webhook_disabled")).isGreaterThanOrEqualTo(1);
		sink.endpoint("failing").behave("ok");
		patch("/api/v1/topics/failing/webhooks/" + id, "{\"status\":\"active\"}", 200);
		await().atMost(WAIT)
			.until(() -> sink.endpoint("failing")
				.received()
				.stream()
				.filter(Received::accepted)
				.anyMatch((r) -> dataN(r) == 6));
		// Given-up events are not resent; the rest arrives in order from the kept
		// cursor.
		List<Integer> numbers = sink.endpoint("failing")
			.received()
			.stream()
			.filter(Received::accepted)
			.map(WebhookIntegrationTests::dataN)
			.toList();
		assertThat(numbers).isSorted().startsWith(0).endsWith(6).contains(5);
		assertThat(new LinkedHashSet<>(numbers)).hasSameSizeAs(numbers);
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(get("/api/v1/topics/failing/webhooks/" + id + "/attempts?limit=100", 200))
				.contains("\"outcome\":\"failed\""));
	}

	@Test
	void replayDeliversAgainFromACursorOrATimeUnderNewIds() {
		createEventTopic("replayed");
		String id = register("replayed", "replayed", "");
		Instant before = Instant.now().minusSeconds(1);
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			ids.add(publish("replayed", "{\"n\":" + i + "}"));
		}
		awaitAccepted("replayed", 5);
		post("/api/v1/topics/replayed/webhooks/" + id + "/replay", "{\"from\":\"" + ids.get(1) + "\"}", 202);
		List<Received> afterCursor = awaitAccepted("replayed", 8);
		assertThat(afterCursor.subList(5, 8)).extracting(WebhookIntegrationTests::dataN).containsExactly(2, 3, 4);
		assertThat(afterCursor.get(5).webhookId()).isEqualTo("msg_replayed_" + ids.get(2) + "_r1");
		post("/api/v1/topics/replayed/webhooks/" + id + "/replay", "{\"since\":\"" + before + "\"}", 202);
		List<Received> sinceTime = awaitAccepted("replayed", 13);
		assertThat(sinceTime.subList(8, 13)).extracting(WebhookIntegrationTests::dataN).containsExactly(0, 1, 2, 3, 4);
		assertThat(sinceTime.get(8).webhookId()).isEqualTo("msg_replayed_" + ids.get(0) + "_r2");
	}

	@Test
	void aTestPingIsASignedDeliveryAnsweredWithItsAttempt() {
		createEventTopic("pinged");
		String id = register("pinged", "pinged", "");
		String answer = post("/api/v1/topics/pinged/webhooks/" + id + "/test", null, 200);
		JsonObject attempt = parse(answer).asJsonObject();
		assertThat(attempt.getInt("statusCode")).isEqualTo(204);
		assertThat(attempt.getString("outcome")).isEqualTo("delivered");
		Received ping = sink.endpoint("pinged").received().get(0);
		assertThat(ping.signatureValid()).isTrue();
		assertThat(ping.type()).isEqualTo("ping");
		await().atMost(WAIT)
			.until(() -> get("/api/v1/topics/pinged/webhooks/" + id + "/attempts", 200).contains("\"type\":\"ping\""));
		sink.endpoint("pinged").behave("status:500");
		JsonObject failed = parse(post("/api/v1/topics/pinged/webhooks/" + id + "/test", null, 200)).asJsonObject();
		assertThat(failed.getString("outcome")).isEqualTo("failed");
		assertThat(failed.getString("error")).contains("500");
	}

	@Test
	void everyRegistrationErrorIsAProblemNamingTheField() {
		createEventTopic("strict");
		String base = "/api/v1/topics/strict/webhooks";
		String good = sink.url("strict");
		Map<String, String> invalid = Map.ofEntries(Map.entry("{}", "/url"), Map.entry("[]", ""),
				Map.entry("{\"url\":42}", "/url"), Map.entry("{\"url\":\"ftp://example.com/x\"}", "/url"),
				Map.entry("{\"url\":\"not a url\"}", "/url"), Map.entry("{\"url\":\"http:///nohost\"}", "/url"),
				Map.entry("{\"url\":\"http://user:pw@example.com/\"}", "/url"),
				Map.entry("{\"url\":\"http://127.0.0.2:9/\"}", "/url"),
				Map.entry("{\"url\":\"http://169.254.169.254/latest\"}", "/url"),
				Map.entry("{\"url\":\"" + good + "\",\"mode\":\"snapshot-patch\"}", "/mode"),
				Map.entry("{\"url\":\"" + good + "\",\"mode\":\"sideways\"}", "/mode"),
				Map.entry("{\"url\":\"" + good + "\",\"secret\":\"plain\"}", "/secret"),
				Map.entry("{\"url\":\"" + good + "\",\"secret\":\"whsec_c2hvcnQ=\"}", "/secret"),
				Map.entry("{\"url\":\"" + good + "\",\"secret\":\"whsec_***\"}", "/secret"),
				Map.entry("{\"url\":\"" + good + "\",\"headers\":{\"Content-Type\":\"text/plain\"}}",
						"/headers/Content-Type"),
				Map.entry("{\"url\":\"" + good + "\",\"headers\":{\"webhook-id\":\"x\"}}", "/headers/webhook-id"),
				Map.entry("{\"url\":\"" + good + "\",\"headers\":{\"bad name\":\"x\"}}", "/headers/bad name"),
				Map.entry("{\"url\":\"" + good + "\",\"headers\":{\"X-A\":\"a\\r\\nX-B: b\"}}", "/headers/X-A"),
				Map.entry("{\"url\":\"" + good + "\",\"headers\":{\"X-A\":1}}", "/headers/X-A"),
				Map.entry("{\"url\":\"" + good + "\",\"headers\":{\"X-A\":\"caf\u00e9 \ud83d\ude00\"}}",
						"/headers/X-A"),
				Map.entry("{\"url\":\"" + good + "\",\"headers\":[]}", "/headers"),
				Map.entry("{\"url\":\"" + good + "\",\"description\":\"" + "d".repeat(501) + "\"}", "/description"),
				Map.entry("{\"url\":\"" + good + "\",\"status\":\"active\"}", "/status"));
		invalid.forEach((json, pointer) -> {
			var response = gateway.client()
				.post()
				.uri(base)
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue(json)
				.exchange();
			response.expectStatus().isBadRequest().expectBody().jsonPath("$.errors[0].pointer").isEqualTo(pointer);
		});
		ProblemAssertions.expectProblem(gateway.client()
			.post()
			.uri(base)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"url\":\"http://127.0.0.2:9/\"}")
			.exchange(), 400, "invalid-webhook");
		ProblemAssertions.expectProblem(gateway.client()
			.post()
			.uri(base)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"url\":")
			.exchange(), 400, "malformed-json");
		ProblemAssertions.expectProblem(
				gateway.client().post().uri(base).contentType(MediaType.APPLICATION_JSON).exchange(), 400,
				"missing-body");
		ProblemAssertions.expectProblem(gateway.client()
			.post()
			.uri(base)
			.contentType(MediaType.TEXT_PLAIN)
			.bodyValue("{\"url\":\"" + good + "\"}")
			.exchange(), 415, "unsupported-media-type");
		ProblemAssertions.expectProblem(gateway.client()
			.post()
			.uri("/api/v1/topics/nosuchtopic/webhooks")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"url\":\"" + good + "\"}")
			.exchange(), 404, "topic-not-found");
		ProblemAssertions.expectProblem(gateway.client().get().uri(base + "/wh_nosuch").exchange(), 404,
				"webhook-not-found");
		ProblemAssertions.expectProblem(gateway.client().get().uri("/api/v1/topics/BAD!/webhooks").exchange(), 400,
				"invalid-topic-id");
		String id = register("strict", "strict", "");
		ProblemAssertions.expectProblem(gateway.client()
			.patch()
			.uri(base + "/" + id)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"status\":\"paused\"}")
			.exchange(), 400, "invalid-webhook");
		ProblemAssertions.expectProblem(gateway.client()
			.patch()
			.uri(base + "/" + id)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"mode\":\"event\"}")
			.exchange(), 400, "invalid-webhook");
		for (String replay : List.of("{}", "{\"from\":\"1\",\"since\":\"2026-01-01T00:00:00Z\"}", "{\"from\":\"x\"}",
				"{\"from\":\"999\"}", "{\"from\":1}", "{\"since\":\"yesterday\"}",
				"{\"since\":\"+999999999-12-31T23:59:59Z\"}", "{\"since\":\"1969-12-31T23:59:59Z\"}",
				"{\"until\":\"1\"}")) {
			ProblemAssertions.expectProblem(gateway.client()
				.post()
				.uri(base + "/" + id + "/replay")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue(replay)
				.exchange(), 400, "invalid-webhook");
		}
		ProblemAssertions.expectProblem(gateway.client().get().uri(base + "/" + id + "/attempts?limit=0").exchange(),
				400, "invalid-parameter");
		// max-per-topic is 5 here.
		for (int i = 1; i < 5; i++) {
			register("strict", "strict" + i, "");
		}
		ProblemAssertions.expectProblem(gateway.client()
			.post()
			.uri(base)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"url\":\"" + good + "\"}")
			.exchange(), 429, "too-many-requests");
		assertThat(parse(get(base, 200)).asJsonObject().getJsonArray("items")).hasSize(5);
		gateway.client().delete().uri(base + "/" + id).exchange().expectStatus().isNoContent();
		ProblemAssertions.expectProblem(gateway.client().get().uri(base + "/" + id).exchange(), 404,
				"webhook-not-found");
	}

	@Test
	void deletingATopicDeletesItsWebhooks() {
		createEventTopic("doomed");
		String id = register("doomed", "doomed", "");
		gateway.client().delete().uri("/api/v1/topics/doomed").exchange().expectStatus().isNoContent();
		createEventTopic("doomed");
		assertThat(parse(get("/api/v1/topics/doomed/webhooks", 200)).asJsonObject().getJsonArray("items")).isEmpty();
		ProblemAssertions.expectProblem(gateway.client().get().uri("/api/v1/topics/doomed/webhooks/" + id).exchange(),
				404, "webhook-not-found");
	}

	private static String register(String topic, String endpoint, String extra) {
		if (sink.endpoint(endpoint) == null) {
			sink.endpoint(endpoint, SECRET);
		}
		String body = post("/api/v1/topics/" + topic + "/webhooks",
				"{\"url\":\"" + sink.url(endpoint) + "\",\"secret\":\"" + SECRET + "\"" + extra + "}", 201);
		return parse(body).asJsonObject().getString("id");
	}

	/** A cursor of a topic at the given offsets. */
	private static void createEventTopic(String id) {
		post("/api/v1/topics",
				"{\"id\":\"" + id + "\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}", 201);
	}

	/** Publishes, and answers the event's id (its cursor) as the publish answered it. */
	private static String publish(String topic, String json) {
		return parse(post("/api/v1/publish/" + topic, json, 202)).asJsonObject().getString("id");
	}

	private static List<Received> awaitAccepted(String endpoint, int count) {
		await().atMost(WAIT)
			.until(() -> sink.endpoint(endpoint).received().stream().filter(Received::accepted).count() >= count);
		return sink.endpoint(endpoint).received().stream().filter(Received::accepted).toList();
	}

	private static int dataN(Received received) {
		return parse(received.body()).asJsonObject().getJsonObject("data").getInt("n");
	}

	private static String post(String uri, String json, int status) {
		var request = gateway.client().post().uri(uri);
		var response = (json != null) ? request.contentType(MediaType.APPLICATION_JSON).bodyValue(json).exchange()
				: request.exchange();
		return response.expectStatus().isEqualTo(status).expectBody(String.class).returnResult().getResponseBody();
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

	private static String get(String uri, int status) {
		return gateway.client()
			.get()
			.uri(uri)
			.exchange()
			.expectStatus()
			.isEqualTo(status)
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
	}

	private static JsonValue parse(String json) {
		try (JsonReader reader = Json.createReader(new StringReader(json))) {
			return reader.readValue();
		}
	}

	/** The sum of a metric's series that carry all the given labels. */
	private static double metric(String name, String... labels) {
		String scrape = get("/actuator/prometheus", 200);
		return scrape.lines()
			.filter((line) -> line.startsWith(name + "{") || line.startsWith(name + " "))
			.filter((line) -> java.util.Arrays.stream(labels).allMatch(line::contains))
			.mapToDouble((line) -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
			.sum();
	}

}
