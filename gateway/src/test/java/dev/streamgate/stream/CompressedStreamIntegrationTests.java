package dev.streamgate.stream;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.ProcessLines;
import dev.streamgate.support.RawHttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Streams compressed on demand ({@code Accept-Encoding}), read by decoders nobody on the
 * team wrote: Python's streaming zlib decoder (each event decodes as it arrives, a resume
 * works, the trailer is complete and its checksum right when the stream ends) and curl's
 * {@code --compressed}. A client that asks for nothing gets plain text.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient
class CompressedStreamIntegrationTests {

	@DynamicPropertySource
	static void kafka(DynamicPropertyRegistry registry) {
		GatewayKafka.register(registry);
	}

	@Autowired
	private WebTestClient client;

	@LocalServerPort
	private int port;

	private void create(String topicId) {
		this.client.post()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"id\":\"" + topicId + "\"}")
			.exchange()
			.expectStatus()
			.isCreated();
	}

	private void publish(String topicId, String json) {
		this.client.post()
			.uri("/api/v1/publish/" + topicId)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(json)
			.exchange()
			.expectStatus()
			.isAccepted();
	}

	private Process python(String topicId, String encoding, String lastEventId) throws IOException {
		List<String> command = new ArrayList<>(List.of("python3", "src/test/python/compressed_stream.py",
				"http://127.0.0.1:" + this.port + "/api/v1/stream/" + topicId, encoding));
		if (lastEventId != null) {
			command.add(lastEventId);
		}
		return new ProcessBuilder(command).redirectErrorStream(true).start();
	}

	private static List<String> events(List<String> lines) {
		return lines.stream().filter((line) -> line.startsWith("event ")).toList();
	}

	@ParameterizedTest
	@ValueSource(strings = { "gzip", "deflate" })
	void pythonsDecoderReadsEachEventAsItComesAResumeAndACompleteTrailer(String encoding) throws Exception {
		String topicId = "compressed-" + encoding;
		create(topicId);
		Process live = python(topicId, encoding, null);
		Process resumed = null;
		try {
			List<String> lines = ProcessLines.of(live);
			await().atMost(Duration.ofSeconds(20)).until(() -> lines.contains("content-encoding " + encoding));
			// The stream is open once its retry line is written; give the subscription a
			// moment.
			Thread.sleep(500);
			for (int n = 0; n < 5; n++) {
				publish(topicId, "{\"n\":" + n + ",\"pad\":\"" + "price ".repeat(200) + "\"}");
				int expected = n + 1;
				await().atMost(Duration.ofSeconds(5)).until(() -> events(lines).size() == expected);
			}
			String second = events(lines).get(1).split(" ")[1];
			resumed = python(topicId, encoding, second);
			List<String> resumedLines = ProcessLines.of(resumed);
			await().atMost(Duration.ofSeconds(20)).until(() -> events(resumedLines).size() == 3);
			assertThat(events(resumedLines)).extracting((line) -> line.split(" ", 4)[3])
				.allSatisfy((data) -> assertThat(data).startsWith("{\"n\":"))
				.extracting((data) -> data.substring(0, 7))
				.containsExactly("{\"n\":2,", "{\"n\":3,", "{\"n\":4,");
			// Deleting the topic ends both streams with a problem, and the compressed
			// streams with their trailers.
			this.client.delete().uri("/api/v1/topics/" + topicId).exchange().expectStatus().isNoContent();
			await().atMost(Duration.ofSeconds(20))
				.until(() -> lines.stream().anyMatch((line) -> line.startsWith("end ")));
			assertThat(lines).contains("end complete");
			assertThat(events(lines)).last().asString().contains(" problem ").contains("topic-deleted");
			assertThat(events(lines)).hasSize(6);
		}
		finally {
			live.destroy();
			if (resumed != null) {
				resumed.destroy();
			}
		}
	}

	@Test
	void curlCompressedReadsTheStream() throws Exception {
		create("compressed-curl");
		publish("compressed-curl", "{\"via\":\"curl\"}");
		Process curl = new ProcessBuilder("curl", "-sN", "--compressed", "--max-time", "3",
				"http://127.0.0.1:" + this.port + "/api/v1/stream/compressed-curl?lastEventId=earliest")
			.start();
		String output = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(curl.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(output).contains("retry: ").contains("event: event\ndata: {\"via\":\"curl\"}");
	}

	@Test
	void aClientThatAsksForNothingGetsPlainTextAndEveryAnswerVariesByAcceptEncoding() throws Exception {
		create("compressed-plain");
		String plain = head("/api/v1/stream/compressed-plain", null);
		assertThat(plain).doesNotContain("content-encoding").contains("vary: accept-encoding");
		assertThat(head("/api/v1/stream/compressed-plain", "br, zstd")).doesNotContain("content-encoding");
		assertThat(head("/api/v1/stream?topic=compressed-plain", "gzip")).contains("content-encoding: gzip");
	}

	/** A stream's response head, in lower case. */
	private String head(String path, String acceptEncoding) throws IOException {
		try (RawHttp connection = new RawHttp(this.port, Duration.ofSeconds(10))) {
			connection.send("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
					+ ((acceptEncoding != null) ? "Accept-Encoding: " + acceptEncoding + "\r\n" : "") + "\r\n");
			return connection.readHeadLowerCase();
		}
	}

}
