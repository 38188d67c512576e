package dev.streamgate.publish;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;

import dev.streamgate.support.GatewayKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With {@code streamgate.ingest.max-wait} set (off by default), a publication that finds
 * the node holding {@code streamgate.ingest.max-in-flight} bytes waits for room instead
 * of being refused at once; it is refused only after the wait. A body of unknown length
 * counts as {@code max-payload} (1 MB + 1 KB here), more than the bound of 1 MB: while
 * one is being read, every other publication waits.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "streamgate.ingest.max-in-flight=1MB", "streamgate.ingest.max-wait=2s" })
class IngestWaitIntegrationTests {

	private static final Duration MAX_WAIT = Duration.ofSeconds(2);

	private static final ParameterizedTypeReference<ServerSentEvent<String>> EVENT = new ParameterizedTypeReference<>() {
	};

	@DynamicPropertySource
	static void kafka(DynamicPropertyRegistry registry) {
		GatewayKafka.register(registry);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private MeterRegistry meters;

	@Test
	void aPublicationBeyondTheBoundWaitsForRoomAndIsPublishedAfterTheOneAheadOfIt() throws Exception {
		WebClient client = client("queued");
		try (Socket slow = startChunkedPublish("queued")) {
			CompletableFuture<ResponseEntity<String>> waiting = publish(client, "queued", "{\"n\":\"second\"}");
			await().atMost(Duration.ofSeconds(1))
				.until(() -> this.meters.get("streamgate.ingest.waiting").gauge().value() > 0);
			Thread.sleep(MAX_WAIT.toMillis() / 2);
			assertThat(waiting).as("the second publication waits while the first is read").isNotDone();
			finishChunkedPublish(slow, "{\"n\":\"first\"}");
			assertThat(readStatusLine(slow)).isEqualTo("HTTP/1.1 202 Accepted");
			assertThat(waiting.get().getStatusCode().value()).isEqualTo(202);
		}
		assertThat(events(client, "queued", 2)).containsExactly("{\"n\":\"first\"}", "{\"n\":\"second\"}");
	}

	@Test
	void aPublicationThatFindsNoRoomWithinTheWaitIsRefusedAndNothingOfItIsPublished() throws Exception {
		WebClient client = client("refused");
		long start = System.nanoTime();
		try (Socket slow = startChunkedPublish("refused")) {
			ResponseEntity<String> refused = publish(client, "refused", "{\"n\":\"refused\"}").get();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(MAX_WAIT);
			assertThat(refused.getStatusCode().value()).isEqualTo(503);
			assertThat(refused.getHeaders().getFirst("Retry-After")).isEqualTo("1");
			assertThat(refused.getHeaders().getContentType()).hasToString("application/problem+json");
			assertThat(refused.getBody()).contains("https://streamgate.dev/problems/overloaded")
				.contains("no room came within 2000 ms");
		}
		// The publisher that went away mid-body left nothing held: the next one goes
		// through at once, and it is the only event of the topic.
		assertThat(publish(client, "refused", "{\"n\":\"after\"}").get().getStatusCode().value()).isEqualTo(202);
		assertThat(events(client, "refused", 1)).containsExactly("{\"n\":\"after\"}");
	}

	private WebClient client(String topic) {
		WebClient client = WebClient.create("http://127.0.0.1:" + this.port);
		client.post()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"id\":\"" + topic + "\"}")
			.retrieve()
			.toBodilessEntity()
			.block(Duration.ofSeconds(30));
		return client;
	}

	private static CompletableFuture<ResponseEntity<String>> publish(WebClient client, String topic, String json) {
		return client.post()
			.uri("/api/v1/publish/" + topic)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(json)
			.exchangeToMono((response) -> response.toEntity(String.class))
			.toFuture();
	}

	/** A publish whose body comes in chunks: its headers are read, its body not yet. */
	private Socket startChunkedPublish(String topic) throws IOException {
		Socket socket = new Socket();
		socket.connect(new InetSocketAddress("127.0.0.1", this.port));
		socket.setSoTimeout(30_000);
		write(socket, "POST /api/v1/publish/" + topic + " HTTP/1.1\r\nHost: localhost\r\n"
				+ "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.meters.get("streamgate.ingest.in-flight").gauge().value() > 1024 * 1024);
		return socket;
	}

	private static void finishChunkedPublish(Socket socket, String json) throws IOException {
		write(socket, Integer.toHexString(json.length()) + "\r\n" + json + "\r\n0\r\n\r\n");
	}

	private static void write(Socket socket, String text) throws IOException {
		OutputStream out = socket.getOutputStream();
		out.write(text.getBytes(StandardCharsets.US_ASCII));
		out.flush();
	}

	private static String readStatusLine(Socket socket) throws IOException {
		InputStream in = socket.getInputStream();
		StringBuilder line = new StringBuilder();
		for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
			line.append((char) b);
		}
		return line.toString().strip();
	}

	/** The first events of the topic from its start (the stream stays open otherwise). */
	private static List<String> events(WebClient client, String topic, int count) {
		return client.get()
			.uri("/api/v1/stream/" + topic + "?lastEventId=earliest")
			.accept(MediaType.TEXT_EVENT_STREAM)
			.retrieve()
			.bodyToFlux(EVENT)
			.filter((event) -> event.id() != null && event.data() != null)
			.map(ServerSentEvent::data)
			.take(count)
			.collectList()
			.block(Duration.ofSeconds(30));
	}

}
