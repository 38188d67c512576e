package dev.streamgate.web;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.RawHttp;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every request on a kept-alive connection gets its answer, however the one before it
 * ended. Reactor Netty 1.3.7 stopped reading a connection whose next request arrived
 * before the previous exchange had finished and then completed at once (reactor-netty
 * #4361): the request after it was never answered. That was the request "with no answer"
 * that failed full test runs now and then (docs/reliability.md); browsers, NGINX's
 * upstream keep-alive and every pooled client send requests this way.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient
class KeepAliveIntegrationTests {

	private static final Duration ANSWER_WITHIN = Duration.ofSeconds(5);

	@DynamicPropertySource
	static void kafka(DynamicPropertyRegistry registry) {
		GatewayKafka.register(registry);
	}

	@Autowired
	private WebTestClient client;

	@LocalServerPort
	private int port;

	@BeforeEach
	void topic() {
		this.client.post()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"id\":\"kept\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}")
			.exchange()
			.expectStatus()
			.value((status) -> assertThat(status).isIn(201, 409));
	}

	@Test
	void aPipelinedRequestAfterASlowOneDoesNotStopTheConnection() throws IOException {
		for (int i = 0; i < 20; i++) {
			try (RawHttp connection = new RawHttp(this.port, ANSWER_WITHIN)) {
				// A publish waits for Kafka's acknowledgement; the refusal after it is
				// answered at once, while the publish is still in flight.
				connection.send(RawHttp.postJson("/api/v1/publish/kept", "{\"n\":" + i + "}"),
						RawHttp.get("/api/v1/stream/Bad!"));
				assertThat(status(connection, "the publish, round " + i)).isEqualTo(202);
				assertThat(status(connection, "the refusal, round " + i)).isEqualTo(400);
				connection.send(RawHttp.get("/actuator/health/liveness"));
				assertThat(status(connection, "the request after them, round " + i)).isEqualTo(200);
			}
		}
	}

	@Test
	void eachRequestSentTheMomentThePreviousAnswerArrivesIsAnswered() throws IOException {
		String[] requests = { RawHttp.postJson("/api/v1/publish/kept", "{\"n\":1}"), RawHttp.get("/api/v1/stream/Bad!"),
				RawHttp.get("/api/v1/topics?page=-1"), RawHttp.get("/api/v1/topics/kept"),
				RawHttp.get("/api/v1/stream/no-such-topic"), RawHttp.get("/") };
		int[] expected = { 202, 400, 400, 200, 404, 307 };
		try (RawHttp connection = new RawHttp(this.port, ANSWER_WITHIN)) {
			for (int i = 0; i < 600; i++) {
				connection.send(requests[i % requests.length]);
				assertThat(status(connection, "answer " + i)).isEqualTo(expected[i % requests.length]);
			}
		}
	}

	private static int status(RawHttp connection, String which) throws IOException {
		try {
			return connection.readStatus();
		}
		catch (SocketTimeoutException ex) {
			throw new AssertionError("No answer within " + ANSWER_WITHIN + ": " + which, ex);
		}
	}

}
