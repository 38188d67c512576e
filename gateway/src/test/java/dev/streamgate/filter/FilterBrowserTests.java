package dev.streamgate.filter;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.streamgate.support.BrowserScript;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.TcpProxy;
import dev.streamgate.support.TestKafka;
import dev.streamgate.support.Tokens;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chromium's EventSource with event types and a CEL filter in its URL, cut by the network
 * and reconnected by the browser with Last-Event-ID: it receives exactly the selected
 * events, once each and in order. Headless Chromium drives
 * {@code src/test/browser/filter.test.mjs}.
 */
class FilterBrowserTests {

	private static final String SECRET = "an-hmac-secret-of-at-least-32-bytes-for-hs256";

	@Test
	@Timeout(value = 5, unit = TimeUnit.MINUTES)
	void aBrowserEventSourceWithAFilterResumesAmongTheSelectedEventsAfterACut() throws Exception {
		String topic = "filtered-browser";
		String token = Tokens.hs256(SECRET, Map.of("subscribe", List.of(topic), "publish", List.of(topic)),
				Instant.now().plus(Duration.ofHours(1)));
		String admin = Tokens.hs256(SECRET, Map.of("admin", true), Instant.now().plus(Duration.ofHours(1)));
		try (RunningGateway gateway = RunningGateway.start("--server.port=0",
				"--spring.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
				"--streamgate.kafka.topic-prefix=" + TestKafka.uniquePrefix(),
				"--streamgate.security.jwt.secret=" + SECRET);
				TcpProxy proxy = TcpProxy
					.to(Integer.parseInt(gateway.context().getEnvironment().getProperty("local.server.port")))) {
			gateway.client()
				.post()
				.uri("/api/v1/topics")
				.headers((headers) -> headers.setBearerAuth(admin))
				.contentType(org.springframework.http.MediaType.APPLICATION_JSON)
				.bodyValue("{\"id\":\"" + topic + "\"}")
				.exchange()
				.expectStatus()
				.isCreated();
			String text = BrowserScript.run(
					"filter.test.mjs", Map.of("BASE_URL", gateway.baseUrl(), "PROXY_URL",
							"http://127.0.0.1:" + proxy.port(), "TOKEN", token, "TOPIC", topic),
					Map.of("cut-now", () -> {
						proxy.cut();
						return "cut";
					}));
			assertThat(text).contains("ok - the EventSource reconnected by itself")
				.contains("ok - only the selected events, resumed without gap or duplicate: 0,3,6,9,12,15");
		}
	}

}
