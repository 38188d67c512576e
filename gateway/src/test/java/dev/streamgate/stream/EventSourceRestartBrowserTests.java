package dev.streamgate.stream;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.MediaType;

import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a front-end developer relies on under the default settings: a browser's
 * EventSource, its token in the query, keeps streaming across a gateway restart. The
 * gateway runs with no configured key, so it signs with the key it keeps in a file; with
 * a key that died with the process the reconnection got 401 and EventSource closed for
 * good. Headless Chromium drives {@code src/test/browser/restart.test.mjs}.
 */
class EventSourceRestartBrowserTests {

	@TempDir
	Path work;

	@Test
	@Timeout(value = 5, unit = TimeUnit.MINUTES)
	void aBrowserStreamWithATokenInTheQueryResumesAcrossARestartWithoutGapOrDuplicate() throws Exception {
		assertThat(Path.of("src", "test", "browser", "node_modules", "playwright-core"))
			.as("playwright-core, installed by src/test/browser/ensure during the build")
			.isDirectory();
		List<String> args = new ArrayList<>(List.of(GatewayKafka.arguments(TestKafka.uniquePrefix())));
		args.remove("--streamgate.security.enabled=false");
		args.remove("--server.port=0");
		args.add("--streamgate.security.jwt.key-file=" + this.work.resolve("token.key"));
		Path log = this.work.resolve("gateway.log");
		GatewayProcess gateway = GatewayProcess.startReady(log, args.toArray(String[]::new));
		try {
			String token = gateway.loggedAdminToken();
			gateway.client()
				.post()
				.uri("/api/v1/topics")
				.headers((headers) -> headers.setBearerAuth(token))
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"id\":\"restarted\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}")
				.exchange()
				.expectStatus()
				.isCreated();
			ProcessBuilder node = new ProcessBuilder("node",
					Path.of("src", "test", "browser", "restart.test.mjs").toString())
				.redirectErrorStream(true);
			node.environment().put("BASE_URL", gateway.baseUrl());
			node.environment().put("TOKEN", token);
			node.environment().put("TOPIC", "restarted");
			Process browser = node.start();
			List<String> output = new ArrayList<>();
			try (BufferedReader lines = new BufferedReader(
					new InputStreamReader(browser.getInputStream(), StandardCharsets.UTF_8));
					OutputStream input = browser.getOutputStream()) {
				String line;
				while ((line = lines.readLine()) != null) {
					output.add(line);
					if (line.equals("restart-now")) {
						int port = gateway.port();
						assertThat(gateway.stop()).isEqualTo(143);
						gateway = GatewayProcess.startReady(log, port, args.toArray(String[]::new));
						input.write("restarted\n".getBytes(StandardCharsets.UTF_8));
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
			assertThat(text).contains("ok - resumed without gap or duplicate: 0,1,2,3,4,5")
				.contains("ok - the EventSource is not closed");
		}
		finally {
			gateway.close();
		}
	}

}
