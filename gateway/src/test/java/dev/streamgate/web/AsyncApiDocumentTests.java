package dev.streamgate.web;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;

import dev.streamgate.support.BrowserScript;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.TestKafka;
import dev.streamgate.support.Tokens;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The AsyncAPI document at {@code /asyncapi}, made from the live topic registry and
 * validated by the AsyncAPI parser (npm {@code @asyncapi/parser}, run by
 * {@code src/test/browser/asyncapi.test.mjs}): a channel per topic the caller may
 * subscribe to, with the payload schema a topic declares.
 */
class AsyncApiDocumentTests {

	private static final String SECRET = "an-hmac-secret-of-at-least-32-bytes-for-hs256";

	private static final String SCHEMA = "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
			+ "\"type\":\"object\",\"required\":[\"amount\"],\"properties\":{\"amount\":{\"type\":\"number\"}}}";

	@Test
	void theDocumentValidatesAndListsTheTopicsTheCallerMaySubscribeTo() throws Exception {
		Instant hour = Instant.now().plus(Duration.ofHours(1));
		String admin = Tokens.hs256(SECRET, Map.of("admin", true), hour);
		String reader = Tokens.hs256(SECRET, Map.of("subscribe", List.of("aa-orders")), hour);
		try (RunningGateway gateway = RunningGateway.start("--server.port=0",
				"--spring.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
				"--streamgate.kafka.topic-prefix=" + TestKafka.uniquePrefix(),
				"--streamgate.security.jwt.secret=" + SECRET)) {
			for (String topic : List.of("{\"id\":\"aa-orders\",\"schema\":" + SCHEMA + "}",
					"{\"id\":\"aa-board\",\"payloadType\":\"snapshot\",\"public\":true}",
					"{\"id\":\"aa-private\",\"payloadType\":\"snapshot\",\"schema\":{\"type\":\"object\"}}")) {
				gateway.client()
					.post()
					.uri("/api/v1/topics")
					.headers((headers) -> headers.setBearerAuth(admin))
					.contentType(MediaType.APPLICATION_JSON)
					.bodyValue(topic)
					.exchange()
					.expectStatus()
					.isCreated();
			}
			String url = gateway.baseUrl() + "/asyncapi";
			String all = BrowserScript.run("asyncapi.test.mjs", Map.of("ASYNCAPI_URL", url, "TOKEN", admin), Map.of());
			assertThat(all).contains("ok - valid AsyncAPI 3.1.0, 4 channels")
				.contains("channel aa-orders", "channel aa-board", "channel aa-private", "channel websocket")
				.doesNotContain("diagnostic 0");
			String granted = BrowserScript.run("asyncapi.test.mjs", Map.of("ASYNCAPI_URL", url, "TOKEN", reader),
					Map.of());
			assertThat(granted).contains("ok - valid AsyncAPI 3.1.0, 3 channels")
				.contains("channel aa-orders", "channel aa-board")
				.doesNotContain("channel aa-private");
			String anonymous = BrowserScript.run("asyncapi.test.mjs", Map.of("ASYNCAPI_URL", url), Map.of());
			assertThat(anonymous).contains("ok - valid AsyncAPI 3.1.0, 2 channels").contains("channel aa-board");
			String document = gateway.client()
				.get()
				.uri("/asyncapi")
				.headers((headers) -> headers.setBearerAuth(admin))
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody(String.class)
				.returnResult()
				.getResponseBody();
			// The declared schema is the event's payload; the snapshot topic's
			// messages are snapshot, patch and problem.
			assertThat(document).contains("\"address\":\"/api/v1/stream/aa-orders\"")
				.contains("\"payload\":{\"type\":\"object\",\"required\":[\"amount\"]")
				.contains("\"aa-board.receive\":{\"action\":\"receive\"")
				.contains("\"$ref\":\"#/channels/aa-board/messages/patch\"")
				// where tokens go, and the WebSocket endpoint with what it takes and
				// sends
				.contains("\"securitySchemes\":{\"bearer\":{\"type\":\"http\",\"scheme\":\"bearer\"")
				.contains("\"name\":\"access_token\",\"in\":\"query\"")
				.contains("\"address\":\"/api/v1/ws\"")
				.contains("\"websocket.send\":{\"action\":\"send\"");
		}
	}

}
