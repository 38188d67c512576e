package dev.streamgate.subscribe.webhook;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.streamgate.core.egress.EgressGuard;
import dev.streamgate.core.egress.EgressProperties;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.webhook.Webhook;
import dev.streamgate.support.HeldServerLoops;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link WebhookSender} against an endpoint served by the JDK's own HTTP server, so that
 * the endpoint runs on no Netty event loop of the test's.
 */
class WebhookSenderTests {

	private final EgressGuard guard = new EgressGuard(new EgressProperties(List.of("127.0.0.0/8"), true));

	private HttpServer endpoint;

	@BeforeEach
	void startEndpoint() throws IOException {
		this.endpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.endpoint.createContext("/hook", (exchange) -> {
			exchange.getRequestBody().readAllBytes();
			exchange.sendResponseHeaders(204, -1);
			exchange.close();
		});
		this.endpoint.start();
	}

	@AfterEach
	void stopEndpoint() {
		this.endpoint.stop(0);
		this.guard.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "127.0.0.1", "localhost" })
	void anAttemptIsMadeWhileEveryEventLoopOfTheNodesHttpServerIsBusy(String host) {
		WebhookProperties properties = new WebhookProperties(List.of(Duration.ofSeconds(5)), Duration.ofSeconds(5),
				Duration.ofDays(1), 10, 10, 10);
		try (HeldServerLoops held = HeldServerLoops.hold();
				WebhookSender sender = new WebhookSender(this.guard, properties, "test", Clock.systemUTC(), null,
						null)) {
			WebhookSender.Result result = sender.send(webhook(host), delivery()).block(Duration.ofSeconds(10));
			assertThat(result.error()).isNull();
			assertThat(result.statusCode()).isEqualTo(204);
		}
	}

	private Webhook webhook(String host) {
		String url = "http://" + host + ":" + this.endpoint.getAddress().getPort() + "/hook";
		return new Webhook("wh_1", "orders", new Webhook.HttpTarget(url, null), SubscriptionMode.EVENT, Map.of(),
				"whsec_test", null, Webhook.Status.ACTIVE, null, 0, "-1", false, Instant.EPOCH, Instant.EPOCH, null,
				null, null, null);
	}

	private static Delivery delivery() {
		return new Delivery("msg_1", "event", Instant.EPOCH, "{\"n\":1}".getBytes(StandardCharsets.UTF_8),
				"application/json", Map.of());
	}

}
