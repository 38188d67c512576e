package dev.streamgate.mercure;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpHeaders;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.streamgate.mercure.MercureHubIntegrationTests.Subscription;
import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.TestKafka;
import dev.streamgate.support.Tokens;

import static dev.streamgate.mercure.MercureHubIntegrationTests.args;
import static dev.streamgate.mercure.MercureHubIntegrationTests.enc;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Mercure's active subscriptions on two nodes over one Kafka: a subscription opened on
 * one node is announced as a private update and listed by the subscriptions API of the
 * other, its end is announced when its subscriber leaves or when its node dies (killed,
 * without a word), and the API answers only tokens that grant its path.
 */
class MercureSubscriptionsIntegrationTests {

	private static final String KEY = "a-mercure-hub-key-of-at-least-32-bytes";

	private static final String SUBSCRIPTIONS = "/.well-known/mercure/subscriptions{/topic}{/subscriber}";

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static RunningGateway node;

	private static String prefix;

	@BeforeAll
	static void startNode() {
		prefix = TestKafka.uniquePrefix();
		node = RunningGateway.start(args(prefix, "--streamgate.mercure.subscriptions=true"));
	}

	@AfterAll
	static void stopNode() {
		node.close();
	}

	private static String token(List<String> subscribe, Object payload) {
		Map<String, Object> claim = (payload != null) ? Map.of("subscribe", subscribe, "payload", payload)
				: Map.of("subscribe", subscribe);
		return Tokens.mercure(KEY, claim, Instant.now().plus(Duration.ofHours(1)));
	}

	private static JsonNode api(String baseUrl, String path, String token, int status) {
		EntityExchangeResult<String> result = node.client().get().uri(URI.create(baseUrl + path)).headers((headers) -> {
			if (token != null) {
				headers.set(HttpHeaders.AUTHORIZATION, "Bearer " + token);
			}
		}).exchange().expectBody(String.class).returnResult();
		assertThat(result.getStatus().value()).as(result.getResponseBody()).isEqualTo(status);
		return JSON.readTree(result.getResponseBody());
	}

	private static List<JsonNode> subscriptionsOf(JsonNode collection, String subscriber) {
		List<JsonNode> found = new ArrayList<>();
		for (JsonNode subscription : collection.get("subscriptions")) {
			if (subscription.get("subscriber").asString().equals(subscriber)) {
				found.add(subscription);
			}
		}
		return found;
	}

	/**
	 * The updates a watcher received about the subscriptions of others (not watchers,
	 * such as itself), oldest first.
	 */
	private static List<JsonNode> updates(Subscription watcher) {
		List<JsonNode> found = new ArrayList<>();
		for (ServerSentEvent<String> event : watcher.events()) {
			JsonNode update = JSON.readTree(event.data());
			if (!update.get("topic").asString().equals(SUBSCRIPTIONS)) {
				found.add(update);
			}
		}
		return found;
	}

	/** The updates a watcher received about one subscriber, oldest first. */
	private static List<JsonNode> updatesOf(Subscription watcher, String subscriber) {
		List<JsonNode> found = new ArrayList<>();
		for (ServerSentEvent<String> event : watcher.events()) {
			JsonNode update = JSON.readTree(event.data());
			if (update.get("subscriber").asString().equals(subscriber)) {
				found.add(update);
			}
		}
		return found;
	}

	@Test
	void theSubscriptionsOfEveryNodeAreAnnouncedListedAndEndedEvenWhenTheirNodeDies(@TempDir Path dir) {
		String admin = token(List.of(SUBSCRIPTIONS), null);
		Subscription watcher = Subscription.open(node, "topic=" + enc(SUBSCRIPTIONS) + "&authorization=" + admin, null);
		String selector = "https://example.com/books/{id}";
		List<String> args = new ArrayList<>(List.of(args(prefix, "--streamgate.mercure.subscriptions=true")));
		args.remove("--server.port=0");
		args.add("--streamgate.embedded-kafka.data-dir=" + dir.resolve("unused"));
		try (GatewayProcess other = GatewayProcess.startReady(dir.resolve("other.log"), args.toArray(String[]::new))) {
			// A subscriber on the other node, which leaves.
			Subscription leaving = Subscription.open(other.baseUrl(), "topic=" + enc(selector) + "&topic=*", null,
					"Bearer " + token(List.of(), Map.of("user", "ann")), null);
			await().atMost(Duration.ofSeconds(20)).until(() -> updates(watcher).size() >= 2);
			String subscriber = updates(watcher).get(0).get("subscriber").asString();
			List<JsonNode> opened = updatesOf(watcher, subscriber);
			assertThat(opened).hasSize(2);
			JsonNode books = opened.stream()
				.filter((update) -> update.get("topic").asString().equals(selector))
				.findFirst()
				.orElseThrow();
			assertThat(books.get("@context").asString()).isEqualTo("https://mercure.rocks/");
			assertThat(books.get("type").asString()).isEqualTo("Subscription");
			assertThat(books.get("active").asBoolean()).isTrue();
			assertThat(books.get("payload").get("user").asString()).isEqualTo("ann");
			assertThat(subscriber).startsWith("urn:uuid:");
			String path = "/.well-known/mercure/subscriptions/" + ActiveSubscriptions.escape(selector) + "/"
					+ ActiveSubscriptions.escape(subscriber);
			assertThat(books.get("id").asString()).isEqualTo(path);
			assertThat(watcher.events()).extracting(ServerSentEvent::id).doesNotContainNull();

			// Listed by this node's API: all, by topic selector, one.
			JsonNode all = api(node.baseUrl(), "/.well-known/mercure/subscriptions", admin, 200);
			assertThat(all.get("type").asString()).isEqualTo("Subscriptions");
			assertThat(all.get("@context").asString()).isEqualTo("https://mercure.rocks/");
			assertThat(all.get("lastEventID").asString()).isNotEmpty();
			assertThat(subscriptionsOf(all, subscriber))
				.extracting((subscription) -> subscription.get("topic").asString())
				.containsExactlyInAnyOrder(selector, "*");
			JsonNode byTopic = api(node.baseUrl(),
					"/.well-known/mercure/subscriptions/" + ActiveSubscriptions.escape(selector), admin, 200);
			assertThat(subscriptionsOf(byTopic, subscriber)).hasSize(1);
			JsonNode one = api(node.baseUrl(), path, admin, 200);
			assertThat(one.get("id").asString()).isEqualTo(path);
			assertThat(one.get("active").asBoolean()).isTrue();
			assertThat(one.get("lastEventID").asString()).isNotEmpty();

			leaving.close();
			await().atMost(Duration.ofSeconds(20)).until(() -> updatesOf(watcher, subscriber).size() >= 4);
			assertThat(updatesOf(watcher, subscriber).subList(2, 4))
				.allMatch((update) -> !update.get("active").asBoolean());
			await().atMost(Duration.ofSeconds(20))
				.until(() -> subscriptionsOf(api(node.baseUrl(), "/.well-known/mercure/subscriptions", admin, 200),
						subscriber)
					.isEmpty());
			api(node.baseUrl(), path, admin, 404);

			// A subscriber on the other node, which dies with it.
			Subscription orphaned = Subscription.open(other.baseUrl(), "topic=" + enc(selector), null,
					"Bearer " + token(List.of(), null), null);
			await().atMost(Duration.ofSeconds(20)).until(() -> updates(watcher).size() >= 5);
			String dead = updates(watcher).get(4).get("subscriber").asString();
			await().atMost(Duration.ofSeconds(20))
				.until(() -> subscriptionsOf(api(node.baseUrl(), "/.well-known/mercure/subscriptions", admin, 200),
						dead)
					.size() == 1);
			other.kill();
			orphaned.close();
			await().atMost(Duration.ofSeconds(40)).until(() -> updatesOf(watcher, dead).size() >= 2);
			assertThat(updatesOf(watcher, dead).get(1).get("active").asBoolean()).isFalse();
			assertThat(subscriptionsOf(api(node.baseUrl(), "/.well-known/mercure/subscriptions", admin, 200), dead))
				.isEmpty();
		}
		watcher.close();
	}

	@Test
	void theApiAnswersOnlyTokensThatGrantItsPath() {
		String path = "/.well-known/mercure/subscriptions";
		api(node.baseUrl(), path, null, 401);
		api(node.baseUrl(), path, token(List.of("https://example.com/{id}"), null), 403);
		api(node.baseUrl(), path, "not-a-token", 401);
		api(node.baseUrl(), path + "/a/b/c", token(List.of("*"), null), 404);
		JsonNode granted = api(node.baseUrl(), path, token(List.of("*"), null), 200);
		assertThat(granted.get("id").asString()).isEqualTo(path);
	}

}
