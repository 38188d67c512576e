package dev.streamgate.stream;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import reactor.core.Disposable;

import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.JdkWebSocket;
import dev.streamgate.support.Sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node that is stopped (SIGTERM: a rolling restart, a scale-in) tells its subscribers
 * to go elsewhere at once: each SSE stream ends with a {@code problem} event of type
 * {@code shutting-down}, each WebSocket is closed with 1001 (going away), rather than
 * connections that simply drop.
 */
class ShutdownIntegrationTests {

	@TempDir
	Path work;

	@Test
	@Timeout(value = 3, unit = TimeUnit.MINUTES)
	void streamsEndWithAProblemAndWebSocketsCloseWithGoingAwayWhenTheNodeStops() throws Exception {
		GatewayProcess gateway = GatewayProcess.startReady(this.work.resolve("gateway.log"),
				"--streamgate.embedded-kafka.data-dir=" + this.work.resolve("data").resolve("kafka"),
				"--streamgate.embedded-kafka.port=0", "--streamgate.security.enabled=false");
		try (gateway) {
			gateway.client()
				.post()
				.uri("/api/v1/topics")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"id\":\"leaving\"}")
				.exchange()
				.expectStatus()
				.isCreated();
			List<ServerSentEvent<String>> received = new CopyOnWriteArrayList<>();
			boolean[] ended = { false };
			Disposable stream = new Sse(gateway.baseUrl()).all("/api/v1/stream/leaving?lastEventId=earliest", null)
				.doOnTerminate(() -> ended[0] = true)
				.subscribe(received::add, (ex) -> ended[0] = true);
			try (JdkWebSocket socket = JdkWebSocket
				.connect(gateway.baseUrl().replace("http://", "ws://") + "/api/v1/ws")) {
				// From the earliest event: the publication below may come before the
				// subscription is in place.
				socket.send("{\"subscribe\":{\"topic\":\"leaving\",\"lastEventId\":\"earliest\"}}");
				gateway.client()
					.post()
					.uri("/api/v1/publish/leaving")
					.contentType(MediaType.APPLICATION_JSON)
					.bodyValue("{\"n\":1}")
					.exchange()
					.expectStatus()
					.isAccepted();
				JsonObject first = socket.next(Duration.ofSeconds(20));
				assertThat(first).as("the published event on the WebSocket").isNotNull();
				assertThat(first.getJsonObject("data").getInt("n")).isEqualTo(1);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> received.stream().anyMatch((e) -> "event".equals(e.event())));

				gateway.stop();

				assertThat(socket.closed().get(20, TimeUnit.SECONDS)).isEqualTo(1001);
				await().atMost(Duration.ofSeconds(20)).until(() -> ended[0]);
				assertThat(received).last().satisfies((last) -> {
					assertThat(last.event()).isEqualTo("problem");
					assertThat(last.data()).contains("https://streamgate.dev/problems/shutting-down");
				});
			}
			finally {
				stream.dispose();
			}
		}
	}

}
