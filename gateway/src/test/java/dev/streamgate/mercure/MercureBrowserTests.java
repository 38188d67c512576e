package dev.streamgate.mercure;

import java.time.Instant;
import java.time.Duration;
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
 * The Mercure hub as browsers use it: Chromium's EventSource with each kind of selector,
 * the token by cookie and by query parameter, resumes by query parameter and, after a
 * cut, by the header the browser sends itself; fetch publishing by header and by cookie.
 * Headless Chromium drives {@code src/test/browser/mercure.test.mjs}.
 */
class MercureBrowserTests {

	private static final String KEY = "a-mercure-hub-key-of-at-least-32-bytes";

	@Test
	@Timeout(value = 5, unit = TimeUnit.MINUTES)
	void browsersSubscribeResumeAndPublishAsMercureClientsDo() throws Exception {
		String topic = "https://example.com/browser/" + System.nanoTime();
		Instant hour = Instant.now().plus(Duration.ofHours(1));
		String publisher = Tokens.mercure(KEY, Map.of("publish", List.of("*")), hour);
		String subscriber = Tokens.mercure(KEY, Map.of("publish", List.of("*"), "subscribe", List.of(topic + "/{id}")),
				hour);
		try (RunningGateway gateway = RunningGateway.start("--server.port=0",
				"--spring.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
				"--streamgate.kafka.topic-prefix=" + TestKafka.uniquePrefix(),
				"--streamgate.mercure.publisher-key=" + KEY, "--streamgate.mercure.anonymous=true");
				TcpProxy proxy = TcpProxy
					.to(Integer.parseInt(gateway.context().getEnvironment().getProperty("local.server.port")))) {
			String text = BrowserScript
				.run("mercure.test.mjs",
						Map.of("BASE_URL", gateway.baseUrl(), "PROXY_URL", "http://127.0.0.1:" + proxy.port(),
								"PUBLISHER", publisher, "SUBSCRIBER", subscriber, "BASE_TOPIC", topic),
						Map.of("cut-now", () -> {
							proxy.cut();
							return "cut";
						}));
			assertThat(text).contains("ok - the event type and every data line arrived")
				.contains("ok - the page published by the Authorization header and by the cookie")
				.contains("ok - every EventSource reconnected");
		}
	}

}
