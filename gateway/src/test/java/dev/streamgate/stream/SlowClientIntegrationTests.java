package dev.streamgate.stream;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.Sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.awaitility.Awaitility.await;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "streamgate.sse.client-queue=512", "streamgate.ingest.max-payload=4MB" })
@AutoConfigureWebTestClient
class SlowClientIntegrationTests {

	private static final int EVENTS = 2000;

	@DynamicPropertySource
	static void kafka(DynamicPropertyRegistry registry) {
		GatewayKafka.register(registry);
	}

	@Autowired
	private WebTestClient client;

	@LocalServerPort
	private int port;

	@Test
	void aClientThatReadsNothingIsCutOffWhileAnotherKeepsReceivingEverything() throws Exception {
		this.client.post()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"id\":\"firehose\"}")
			.exchange()
			.expectStatus()
			.isCreated();
		String padding = "x".repeat(2000);
		try (Socket stalled = new Socket()) {
			// A reader that never reads, with a small window, so that the server's writes
			// back up.
			stalled.setReceiveBufferSize(4096);
			stalled.connect(new InetSocketAddress("127.0.0.1", this.port));
			OutputStream out = stalled.getOutputStream();
			out.write(("GET /api/v1/stream/firehose HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			List<ServerSentEvent<String>> received = new Sse("http://localhost:" + this.port).takeAfter(
					"/api/v1/stream/firehose", null, EVENTS, () -> IntStream.range(0, EVENTS / 100).forEach((batch) -> {
						this.client.post()
							.uri("/api/v1/publish/firehose")
							.contentType(MediaType.parseMediaType("application/x-ndjson"))
							.bodyValue(String.join("\n",
									IntStream.range(batch * 100, batch * 100 + 100)
										.mapToObj((i) -> "{\"n\":" + i + ",\"pad\":\"" + padding + "\"}")
										.toList()))
							.exchange()
							.expectStatus()
							.isAccepted();
						// A reading client keeps up with a batch every 100 ms even on a
						// machine busy with other tests; one that reads nothing still
						// falls 2,000 events behind.
						assertThatNoException().isThrownBy(() -> Thread.sleep(100));
					}));
			assertThat(received.size()).isEqualTo(EVENTS);
			assertThat(received.get(EVENTS - 1).data()).startsWith("{\"n\":" + (EVENTS - 1) + ",");
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(metrics())
					.containsPattern("streamgate_sse_disconnects_total\\{.*reason=\"slow\".*\\} [1-9]"));
			assertThat(metrics()).containsPattern("streamgate_events_delivered_total\\{.*topic=\"firehose\".*\\} [1-9]")
				.contains("streamgate_delivery_latency_seconds_bucket")
				.containsPattern("streamgate_sse_clients\\{.*topic=\"firehose\".*\\} ");
		}
	}

	@Test
	void aClientThatReadsNothingIsCutOffByTheBytesItHoldsNotByItsEventCount() throws Exception {
		this.client.post()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"id\":\"large-events\"}")
			.exchange()
			.expectStatus()
			.isCreated();
		// 80 events of 200 KB: far fewer than the 512 a queue holds, twice the 8 MB a
		// connection may hold (streamgate.memory.client-buffer).
		String padding = "x".repeat(200 * 1024);
		int events = 80;
		try (Socket stalled = new Socket()) {
			stalled.setReceiveBufferSize(4096);
			stalled.connect(new InetSocketAddress("127.0.0.1", this.port));
			OutputStream out = stalled.getOutputStream();
			out.write(
					("GET /api/v1/stream/large-events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
						.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			double before = slowDisconnects();
			long[] mostHeld = { 0 };
			List<ServerSentEvent<String>> received = new Sse("http://localhost:" + this.port).takeAfter(
					"/api/v1/stream/large-events", null, events, () -> IntStream.range(0, events).forEach((i) -> {
						this.client.post()
							.uri("/api/v1/publish/large-events")
							.contentType(MediaType.APPLICATION_JSON)
							.bodyValue("{\"n\":" + i + ",\"pad\":\"" + padding + "\"}")
							.exchange()
							.expectStatus()
							.isAccepted();
						mostHeld[0] = Math.max(mostHeld[0], heldBytes());
					}));
			assertThat(received).hasSize(events);
			await().atMost(Duration.ofSeconds(10)).until(() -> slowDisconnects() > before);
			// What the node held for its connections never went far past one connection's
			// limit and the reader that keeps up: the stalled one was cut off in time.
			assertThat(mostHeld[0]).isLessThan(10L * 1024 * 1024);
			await().atMost(Duration.ofSeconds(10)).until(() -> heldBytes() < 1024 * 1024);
		}
	}

	private double slowDisconnects() {
		return sum("streamgate_sse_disconnects_total\\{[^}]*reason=\"slow\"[^}]*\\} ([0-9.E+-]+)");
	}

	private long heldBytes() {
		return (long) sum("streamgate_memory_client_buffers_bytes\\{[^}]*\\} ([0-9.E+-]+)");
	}

	private double sum(String sample) {
		Matcher matcher = Pattern.compile(sample).matcher(metrics());
		double sum = 0;
		while (matcher.find()) {
			sum += Double.parseDouble(matcher.group(1));
		}
		return sum;
	}

	private String metrics() {
		return this.client.get()
			.uri("/actuator/prometheus")
			.exchange()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
	}

}
