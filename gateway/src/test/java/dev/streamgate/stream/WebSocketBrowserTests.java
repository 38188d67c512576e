package dev.streamgate.stream;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.http.MediaType;

import dev.streamgate.support.BrowserScript;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.TcpProxy;
import dev.streamgate.support.TestKafka;
import dev.streamgate.support.Tokens;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A browser's WebSocket client on three topics, its connection cut by the network (a TCP
 * proxy resets it) and reconnected by the page with each topic's last id: every topic
 * resumes with no gap and no duplicate. Headless Chromium drives
 * {@code src/test/browser/websocket.test.mjs}.
 */
class WebSocketBrowserTests {

	private static final String SECRET = "an-hmac-secret-of-at-least-32-bytes-for-hs256";

	@Test
	@Timeout(value = 5, unit = TimeUnit.MINUTES)
	void aBrowserWebSocketCutByTheNetworkResumesEachTopicWithoutGapOrDuplicate() throws Exception {
		List<String> topics = List.of("ws-browser-a", "ws-browser-b", "ws-browser-c");
		String token = Tokens.hs256(SECRET, Map.of("subscribe", topics, "publish", topics),
				Instant.now().plus(Duration.ofHours(1)));
		String admin = Tokens.hs256(SECRET, Map.of("admin", true), Instant.now().plus(Duration.ofHours(1)));
		try (RunningGateway gateway = RunningGateway.start("--server.port=0",
				"--spring.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
				"--streamgate.kafka.topic-prefix=" + TestKafka.uniquePrefix(),
				"--streamgate.security.jwt.secret=" + SECRET);
				TcpProxy proxy = TcpProxy
					.to(Integer.parseInt(gateway.context().getEnvironment().getProperty("local.server.port")))) {
			for (String topic : topics) {
				gateway.client()
					.post()
					.uri("/api/v1/topics")
					.headers((headers) -> headers.setBearerAuth(admin))
					.contentType(MediaType.APPLICATION_JSON)
					.bodyValue("{\"id\":\"" + topic + "\"}")
					.exchange()
					.expectStatus()
					.isCreated();
			}
			String text = BrowserScript.run(
					"websocket.test.mjs", Map.of("BASE_URL", gateway.baseUrl(), "PROXY_URL",
							"http://127.0.0.1:" + proxy.port(), "TOKEN", token, "TOPICS", String.join(",", topics)),
					Map.of("cut-now", () -> {
						proxy.cut();
						return "cut";
					}));
			assertThat(text).contains("ok - the page reconnected");
			for (String topic : topics) {
				assertThat(text).contains("ok - " + topic + " resumed without gap or duplicate: 0,1,2,3,4,5");
			}
		}
	}

}
