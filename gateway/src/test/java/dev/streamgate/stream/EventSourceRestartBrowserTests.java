package dev.streamgate.stream;

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
			gateway.client()
				.post()
				.uri("/api/v1/topics")
				.headers((headers) -> headers.setBearerAuth(token))
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"id\":\"restarted\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}")
				.exchange()
				.expectStatus()
				.isCreated();
			String text = BrowserScript.run("restart.test.mjs",
					Map.of("BASE_URL", gateway.baseUrl(), "TOKEN", token, "TOPIC", "restarted"),
					Map.of("restart-now", () -> {
						int port = running.get().port();
						assertThat(running.get().stop()).isEqualTo(143);
						running.set(GatewayProcess.startReady(log, port, args.toArray(String[]::new)));
						return "restarted";
					}));
			assertThat(text).contains("ok - resumed without gap or duplicate: 0,1,2,3,4,5")
				.contains("ok - the EventSource is not closed");
		}
		finally {
			running.get().close();
		}
	}

}
