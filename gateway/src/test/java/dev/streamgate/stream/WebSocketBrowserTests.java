package dev.streamgate.stream;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.http.MediaType;

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
		assertThat(Path.of("src", "test", "browser", "node_modules", "playwright-core"))
			.as("playwright-core, installed by src/test/browser/ensure during the build")
			.isDirectory();
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
			ProcessBuilder node = new ProcessBuilder("node",
					Path.of("src", "test", "browser", "websocket.test.mjs").toString())
				.redirectErrorStream(true);
			node.environment().put("BASE_URL", gateway.baseUrl());
			node.environment().put("PROXY_URL", "http://127.0.0.1:" + proxy.port());
			node.environment().put("TOKEN", token);
			node.environment().put("TOPICS", String.join(",", topics));
			Process browser = node.start();
			List<String> output = new ArrayList<>();
			try (BufferedReader lines = new BufferedReader(
					new InputStreamReader(browser.getInputStream(), StandardCharsets.UTF_8));
					OutputStream input = browser.getOutputStream()) {
				String line;
				while ((line = lines.readLine()) != null) {
					output.add(line);
					if (line.equals("cut-now")) {
						proxy.cut();
						input.write("cut\n".getBytes(StandardCharsets.UTF_8));
						input.flush();
					}
				}
			}
			boolean finished = browser.waitFor(3, TimeUnit.MINUTES);
			if (!finished) {
				browser.destroyForcibly();
			}
			String text = String.join("\n", output);
			System.out.println(text);
			assertThat(finished).as("the browser test finished in time").isTrue();
			assertThat(browser.exitValue()).as(text).isZero();
			assertThat(text).contains("ok - the page reconnected");
			for (String topic : topics) {
				assertThat(text).contains("ok - " + topic + " resumed without gap or duplicate: 0,1,2,3,4,5");
			}
		}
	}

}
