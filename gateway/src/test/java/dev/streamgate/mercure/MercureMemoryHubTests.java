package dev.streamgate.mercure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.codec.ServerSentEvent;

import dev.streamgate.mercure.MercureHubIntegrationTests.Subscription;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.Tokens;

import static dev.streamgate.mercure.MercureHubIntegrationTests.enc;
import static dev.streamgate.mercure.MercureHubIntegrationTests.form;
import static dev.streamgate.mercure.MercureHubIntegrationTests.publish;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Mercure hub on a node without Kafka ({@code streamgate.storage=memory}): updates,
 * resumes and active subscriptions work as over Kafka, for the one node there is.
 */
class MercureMemoryHubTests {

	private static final String KEY = "a-mercure-hub-key-of-at-least-32-bytes";

	private static RunningGateway node;

	@BeforeAll
	static void startNode() {
		node = RunningGateway.start("--server.port=0", "--streamgate.storage=memory",
				"--streamgate.security.enabled=false", "--streamgate.mercure.publisher-key=" + KEY,
				"--streamgate.mercure.subscriptions=true");
	}

	@AfterAll
	static void stopNode() {
		node.close();
	}

	private static String subscriber(List<String> selectors) {
		return Tokens.mercure(KEY, Map.of("subscribe", selectors), Instant.now().plus(Duration.ofHours(1)));
	}

	@Test
	void updatesResumesAndSubscriptionsWorkInMemory() {
		String topic = "https://example.com/memory/" + System.nanoTime();
		String watching = "/.well-known/mercure/subscriptions{/topic}{/subscriber}";
		Subscription watcher = Subscription.open(node,
				"topic=" + enc(watching) + "&authorization=" + subscriber(List.of(watching)), null);
		Subscription live = Subscription.open(node, "topic=" + enc(topic) + "&authorization=" + subscriber(List.of()),
				null);
		String first = publish(node, form("topic", topic, "data", "one"));
		String second = publish(node, form("topic", topic, "data", "two"));
		live.awaitIds(first, second);
		Subscription resumed = Subscription.open(node.baseUrl(),
				"topic=" + enc(topic) + "&authorization=" + subscriber(List.of()), first, null, null);
		resumed.awaitIds(second);
		assertThat(resumed.lastEventId()).isEqualTo(first);

		await().atMost(Duration.ofSeconds(10))
			.until(() -> watcher.events()
				.stream()
				.map(ServerSentEvent::data)
				.filter((data) -> data.contains("\"topic\":\"" + topic + "\""))
				.count() >= 2);
		String listed = node.client()
			.get()
			.uri("/.well-known/mercure/subscriptions")
			.header(HttpHeaders.AUTHORIZATION, "Bearer " + subscriber(List.of(watching)))
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.contentType("application/ld+json")
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		assertThat(listed).contains("\"type\":\"Subscriptions\"", "\"topic\":\"" + topic + "\"");
		List.of(watcher, live, resumed).forEach(Subscription::close);
	}

}
