package dev.streamgate.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

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
import dev.streamgate.support.JdkWebSocket;
import dev.streamgate.support.RawHttp;
import dev.streamgate.support.Sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * A client that trickles its request headers, or connects and sends nothing, is answered
 * 408 and closed once {@code streamgate.http.header-timeout} has passed; kept-alive
 * connections between requests and open streams are not affected.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "streamgate.http.header-timeout=2s")
@AutoConfigureWebTestClient
class HeaderTimeoutIntegrationTests {

	private static final Duration GRACE = Duration.ofSeconds(6);

	@DynamicPropertySource
	static void kafka(DynamicPropertyRegistry registry) {
		GatewayKafka.register(registry);
	}

	@Autowired
	private WebTestClient client;

	@LocalServerPort
	private int port;

	@Test
	void headersTrickledAByteAtATimeAreAnswered408AndTheConnectionCloses() throws Exception {
		try (RawHttp connection = new RawHttp(this.port, GRACE)) {
			connection.send("GET /actuator/health/liveness HTTP/1.1\r\nHost: localhost\r\n");
			long started = System.nanoTime();
			// Bytes keep coming while the gateway answers: its lingering close gives the
			// client the 408 and an orderly end, where an abrupt close would reset.
			Thread trickle = new Thread(() -> {
				try {
					for (int i = 0; i < 1000; i++) {
						connection.send("X");
						Thread.sleep(10);
					}
				}
				catch (IOException | InterruptedException ex) {
					// closed by the gateway: what the test waits for
				}
			});
			trickle.setDaemon(true);
			trickle.start();
			assertThat(connection.readStatus()).isEqualTo(408);
			connection.awaitClose();
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
			trickle.interrupt();
		}
	}

	@Test
	void aConnectionThatSendsNothingIsClosed() throws IOException {
		try (RawHttp connection = new RawHttp(this.port, GRACE)) {
			assertThat(connection.readStatus()).isEqualTo(408);
			connection.awaitClose();
		}
	}

	@Test
	void aKeptAliveConnectionIdleBetweenRequestsAndSlowBodiesAreNotCutByTheHeaderTimeout() throws Exception {
		try (RawHttp connection = new RawHttp(this.port, GRACE)) {
			connection.send(RawHttp.get("/actuator/health/liveness"));
			assertThat(connection.readStatus()).isEqualTo(200);
			Thread.sleep(3000);
			connection.send(RawHttp.get("/actuator/health/liveness"));
			assertThat(connection.readStatus()).isEqualTo(200);
			// a body that takes longer than the header timeout: the body's own limits
			// apply
			String json = "{\"id\":\"slow-body\"}";
			connection.send("POST /api/v1/topics HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
					+ "Content-Length: " + json.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n");
			for (char c : json.toCharArray()) {
				Thread.sleep(200);
				connection.send(String.valueOf(c));
			}
			assertThat(connection.readStatus()).isIn(201, 409);
		}
	}

	@Test
	void streamsAndWebSocketsStayOpenLongerThanTheHeaderTimeout() throws Exception {
		this.client.post()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"id\":\"long-lived\"}")
			.exchange()
			.expectStatus()
			.value((status) -> assertThat(status).isIn(201, 409));
		try (JdkWebSocket socket = JdkWebSocket.connect("ws://localhost:" + this.port + "/api/v1/ws")) {
			List<ServerSentEvent<String>> events = new Sse("http://localhost:" + this.port)
				.takeAfter("/api/v1/stream/long-lived", null, 1, () -> {
					assertThatNoException().isThrownBy(() -> Thread.sleep(3500));
					this.client.post()
						.uri("/api/v1/publish/long-lived")
						.contentType(MediaType.APPLICATION_JSON)
						.bodyValue("{\"late\":true}")
						.exchange()
						.expectStatus()
						.isAccepted();
				});
			assertThat(events).extracting(ServerSentEvent::data).containsExactly("{\"late\":true}");
			assertThat(socket.closed()).isNotDone();
			socket.send("{\"subscribe\":{\"topic\":\"long-lived\",\"lastEventId\":\"earliest\"}}");
			assertThat(socket.next(Duration.ofSeconds(10)).toString()).contains("late");
		}
	}

}
