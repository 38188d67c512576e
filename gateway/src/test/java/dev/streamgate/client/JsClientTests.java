package dev.streamgate.client;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.MediaType;

import dev.streamgate.support.BrowserScript;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JavaScript client ({@code clients/js}, built by its module before this one) against
 * a real gateway: its Node test suite ({@code test/integration}: connections cut by a TCP
 * proxy, 5-second tokens refreshed for a minute, several topics, filters, views, typed
 * problems, over WebSocket and SSE alike), and a page in headless Chromium that loads the
 * built client and keeps its document and events across a gateway restart.
 */
class JsClientTests {

	private static final Path CLIENT = Path.of("..", "clients", "js");

	private static final String SECRET = "a-js-client-test-secret-of-at-least-32-bytes";

	@TempDir
	Path work;

	private static void assertBuilt() {
		assertThat(CLIENT.resolve("dist").resolve("index.js"))
			.as("the client built by clients/js (./mvnw -pl clients/js compile)")
			.exists();
	}

	@Test
	@Timeout(value = 6, unit = TimeUnit.MINUTES)
	void theClientsNodeSuitePassesAgainstAGateway() throws Exception {
		assertBuilt();
		try (RunningGateway gateway = RunningGateway.start("--server.port=0",
				"--spring.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
				"--streamgate.kafka.topic-prefix=" + TestKafka.uniquePrefix(),
				"--streamgate.security.jwt.secret=" + SECRET, "--streamgate.security.token-expiring-notice=2s")) {
			String output = BrowserScript.runNode(
					List.of("--experimental-websocket", "--test", "--test-reporter=spec", "test/integration/"), CLIENT,
					Map.of("BASE_URL", gateway.baseUrl(), "SECRET", SECRET), Map.of());
			assertThat(output).contains("fail 0").doesNotContain("# fail 1").contains("websocket:").contains("sse:");
		}
	}

	@Test
	@Timeout(value = 5, unit = TimeUnit.MINUTES)
	void aPageKeepsItsDocumentAndEventsAcrossAGatewayRestart() throws Exception {
		assertBuilt();
		List<String> args = new ArrayList<>(List.of(GatewayKafka.arguments(TestKafka.uniquePrefix())));
		args.remove("--streamgate.security.enabled=false");
		args.remove("--server.port=0");
		args.add("--streamgate.security.jwt.key-file=" + this.work.resolve("token.key"));
		Path log = this.work.resolve("gateway.log");
		AtomicReference<GatewayProcess> running = new AtomicReference<>(
				GatewayProcess.startReady(log, args.toArray(String[]::new)));
		try {
			GatewayProcess gateway = running.get();
			String token = gateway.loggedAdminToken();
			for (String topic : List.of("{\"id\":\"page-doc\",\"payloadType\":\"snapshot\"}",
					"{\"id\":\"page-events\",\"payloadType\":\"event\"}")) {
				gateway.client()
					.post()
					.uri("/api/v1/topics")
					.headers((headers) -> headers.setBearerAuth(token))
					.contentType(MediaType.APPLICATION_JSON)
					.bodyValue(topic)
					.exchange()
					.expectStatus()
					.isCreated();
			}
			String text = BrowserScript.run("client.test.mjs",
					Map.of("BASE_URL", gateway.baseUrl(), "TOKEN", token, "DOCS", "page-doc", "EVENTS", "page-events",
							"CLIENT_DIST", CLIENT.resolve("dist").toAbsolutePath().normalize().toString()),
					Map.of("restart-now", () -> {
						int port = running.get().port();
						assertThat(running.get().stop()).isEqualTo(143);
						running.set(GatewayProcess.startReady(log, port, args.toArray(String[]::new)));
						return "restarted";
					}));
			assertThat(text).contains("ok - websocket: the document is the last published")
				.contains("ok - sse: every event once, in order");
		}
		finally {
			running.get().close();
		}
	}

}
