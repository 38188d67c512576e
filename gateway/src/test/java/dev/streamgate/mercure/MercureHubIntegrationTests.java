package dev.streamgate.mercure;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.util.DefaultUriBuilderFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.TestKafka;
import dev.streamgate.support.Tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Mercure hub on two gateway nodes over one Kafka: updates published on one node
 * reach subscribers of the other, selected by exact topics, URI templates and {@code *},
 * private ones only where the token grants them; resumes are exact on either node, from
 * the header or the query, from the hub's ids and from publishers' own; tokens come by
 * header, query parameter or cookie, and bad requests get problem answers with Mercure's
 * statuses.
 */
class MercureHubIntegrationTests {

	private static final String KEY = "a-mercure-hub-key-of-at-least-32-bytes";

	private static final String PUBLISHER = Tokens.mercure(KEY, Map.of("publish", List.of("*")), null);

	private static RunningGateway anonymousNode;

	private static RunningGateway tokenNode;

	private static String prefix;

	@BeforeAll
	static void startNodes() {
		prefix = TestKafka.uniquePrefix();
		anonymousNode = RunningGateway
			.start(args(prefix, "--streamgate.mercure.anonymous=true", "--streamgate.mercure.discovery=true"));
		tokenNode = RunningGateway.start(args(prefix));
		for (RunningGateway node : List.of(anonymousNode, tokenNode)) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> node.client()
					.get()
					.uri("/.well-known/mercure?topic=*&authorization=" + subscriber(List.of("*")))
					.exchange()
					.returnResult(String.class)
					.getStatus()
					.value() == 200);
		}
	}

	static String[] args(String prefix, String... more) {
		List<String> args = new ArrayList<>(List.of(GatewayKafka.arguments(prefix)));
		args.add("--streamgate.mercure.publisher-key=" + KEY);
		args.addAll(List.of(more));
		return args.toArray(String[]::new);
	}

	@AfterAll
	static void stopNodes() {
		tokenNode.close();
		anonymousNode.close();
	}

	static String subscriber(List<String> selectors) {
		return Tokens.mercure(KEY, Map.of("subscribe", selectors), Instant.now().plus(Duration.ofHours(1)));
	}

	@Test
	void updatesPublishedOnOneNodeReachTheSelectorsOfTheOther() {
		String base = "https://example.com/books/" + System.nanoTime();
		Subscription template = Subscription.open(anonymousNode, "topic=" + enc(base + "/{id}"), null);
		Subscription exact = Subscription.open(anonymousNode, "topic=" + enc(base + "/1"), null);
		Subscription any = Subscription.open(tokenNode, "topic=*&authorization=" + subscriber(List.of()), null);
		String first = publish(tokenNode,
				form("topic", base + "/1", "data", "line one\nline two", "type", "book", "retry", "2500"));
		String second = publish(tokenNode, form("topic", base + "/2", "data", "{\"n\":2}"));
		// An alternate topic: selected through the second topic.
		String third = publish(tokenNode, form("topic", "urn:other:" + base, "topic", base + "/3", "data", "alt"));
		String unrelated = publish(tokenNode, form("topic", "https://example.com/authors/1", "data", "no"));
		List<ServerSentEvent<String>> selected = template.awaitIds(first, second, third);
		exact.awaitIds(first);
		any.awaitIds(first, second, third, unrelated);
		ServerSentEvent<String> book = selected.get(0);
		assertThat(book.event()).isEqualTo("book");
		assertThat(book.data()).isEqualTo("line one\nline two");
		assertThat(book.retry()).isEqualTo(Duration.ofMillis(2500));
		assertThat(selected.get(2).data()).isEqualTo("alt");
		List.of(template, exact, any).forEach(Subscription::close);
	}

	@Test
	void privateUpdatesGoOnlyWhereTheTokenGrantsOneOfTheirTopics() {
		String base = "https://example.com/private/" + System.nanoTime();
		Subscription anonymous = Subscription.open(anonymousNode, "topic=" + enc(base + "/{id}"), null);
		Subscription granted = Subscription.open(tokenNode,
				"topic=" + enc(base + "/{id}") + "&authorization=" + subscriber(List.of(base + "/1")), null);
		Subscription other = Subscription.open(tokenNode,
				"topic=" + enc(base + "/{id}") + "&authorization=" + subscriber(List.of(base + "/9")), null);
		String secret = publish(anonymousNode, form("topic", base + "/1", "data", "secret", "private", "on"));
		String open = publish(anonymousNode, form("topic", base + "/2", "data", "open"));
		granted.awaitIds(secret, open);
		anonymous.awaitIds(open);
		other.awaitIds(open);
		List.of(anonymous, granted, other).forEach(Subscription::close);
	}

	@Test
	void aSubscriberResumesExactlyOnEitherNodeFromTheHeaderOrTheQuery() {
		String topic = "https://example.com/resume/" + System.nanoTime();
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			ids.add(publish(anonymousNode, form("topic", topic, "data", "u" + i)));
		}
		ids.add(publish(anonymousNode, form("topic", topic, "data", "custom", "id", "custom-" + topic)));
		ids.add(publish(anonymousNode, form("topic", topic, "data", "u5")));
		String selector = "topic=" + enc(topic) + "&authorization=" + subscriber(List.of());
		for (RunningGateway node : List.of(anonymousNode, tokenNode)) {
			// A hub's id, in the header.
			Subscription header = Subscription.open(node, selector, ids.get(1));
			header.awaitIds(ids.subList(2, ids.size()).toArray(String[]::new));
			assertThat(header.lastEventId()).isEqualTo(ids.get(1));
			// The header wins over the query parameter.
			Subscription both = Subscription.open(node, selector + "&lastEventID=" + enc(ids.get(0)), ids.get(3));
			both.awaitIds(ids.subList(4, ids.size()).toArray(String[]::new));
			// A publisher's own id, in the query.
			Subscription custom = Subscription.open(node, selector + "&lastEventID=" + enc(ids.get(4)), null);
			custom.awaitIds(ids.subList(5, ids.size()).toArray(String[]::new));
			assertThat(custom.lastEventId()).isEqualTo(ids.get(4));
			// The whole history.
			Subscription earliest = Subscription.open(node, selector + "&lastEventID=earliest", null);
			earliest.awaitIds(ids.toArray(String[]::new));
			assertThat(earliest.lastEventId()).isEqualTo("earliest");
			// An id the hub does not know: nothing replayed, and the response says so.
			Subscription unknown = Subscription.open(node, selector + "&lastEventID=never-published", null);
			assertThat(unknown.lastEventId()).isEqualTo("earliest");
			// Live: the response names the newest update.
			Subscription live = Subscription.open(node, selector, null);
			assertThat(live.lastEventId()).isEqualTo(ids.get(ids.size() - 1));
			String next = publish(tokenNode, form("topic", topic, "data", "next"));
			ids.add(next);
			unknown.awaitIds(next);
			live.awaitIds(next);
			List.of(header, both, custom, earliest, unknown, live).forEach(Subscription::close);
		}
	}

	@Test
	void aSubscriberWhoseNodeDiesResumesOnAnotherWithoutLossOrRepeat(@TempDir Path dir) {
		String topic = "https://example.com/failover/" + System.nanoTime();
		String selector = "topic=" + enc(topic) + "&authorization=" + subscriber(List.of());
		List<String> published = new ArrayList<>();
		List<String> args = new ArrayList<>(List.of(args(prefix)));
		args.remove("--server.port=0");
		args.add("--streamgate.embedded-kafka.data-dir=" + dir.resolve("unused"));
		String lastSeen;
		try (GatewayProcess dying = GatewayProcess.startReady(dir.resolve("dying.log"), args.toArray(String[]::new))) {
			Subscription before = Subscription.open(dying.baseUrl(), selector, null, null, null);
			for (int i = 0; i < 3; i++) {
				published.add(publish(anonymousNode, form("topic", topic, "data", "before " + i)));
			}
			lastSeen = before.awaitIds(published.toArray(String[]::new)).get(2).id();
			dying.kill();
			before.completed().orTimeout(10, TimeUnit.SECONDS).exceptionally((ex) -> null).join();
		}
		for (int i = 0; i < 3; i++) {
			published.add(publish(anonymousNode, form("topic", topic, "data", "after " + i)));
		}
		Subscription after = Subscription.open(tokenNode, selector, lastSeen);
		after.awaitIds(published.subList(3, 6).toArray(String[]::new));
		after.close();
	}

	@Test
	void theTokenComesByHeaderQueryOrCookieAndTheStreamEndsWhenItExpires() {
		String topic = "https://example.com/tokens/" + System.nanoTime();
		String token = subscriber(List.of(topic));
		Subscription byHeader = Subscription.open(tokenNode.baseUrl(), "topic=" + enc(topic), null, "Bearer " + token,
				null);
		Subscription byCookie = Subscription.open(tokenNode.baseUrl(), "topic=" + enc(topic), null, null, token);
		Subscription byQuery = Subscription.open(tokenNode, "topic=" + enc(topic) + "&authorization=" + token, null);
		String expiring = Tokens.mercure(KEY, Map.of("subscribe", List.of(topic)), Instant.now().plusSeconds(3));
		Subscription ending = Subscription.open(tokenNode, "topic=" + enc(topic) + "&authorization=" + expiring, null);
		String id = publish(tokenNode, form("topic", topic, "data", "secret", "private", ""));
		for (Subscription subscription : List.of(byHeader, byCookie, byQuery, ending)) {
			subscription.awaitIds(id);
		}
		ending.completed().orTimeout(10, TimeUnit.SECONDS).join();
		List.of(byHeader, byCookie, byQuery).forEach(Subscription::close);
		// Without a token where anonymous subscribers are off; with a refused one.
		tokenNode.client()
			.get()
			.uri("/.well-known/mercure?topic=x")
			.exchange()
			.expectStatus()
			.isUnauthorized()
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON);
		tokenNode.client()
			.get()
			.uri("/.well-known/mercure?topic=x")
			.header(HttpHeaders.AUTHORIZATION,
					"Bearer " + Tokens.mercure("another-key-of-at-least-thirty-two-bytes",
							Map.of("subscribe", List.of("*")), null))
			.exchange()
			.expectStatus()
			.isUnauthorized()
			.expectHeader()
			.valueEquals(HttpHeaders.WWW_AUTHENTICATE, "Bearer error=\"invalid_token\"");
		anonymousNode.client().get().uri("/.well-known/mercure").exchange().expectStatus().isBadRequest();
	}

	@Test
	void publicationsTheHubRefusesGetProblemAnswersWithMercuresStatuses() {
		String selective = Tokens.mercure(KEY, Map.of("publish", List.of("https://example.com/mine/{id}")), null);
		String none = Tokens.mercure(KEY, Map.of("subscribe", List.of("*")), null);
		assertThat(status(null, form("topic", "x"))).isEqualTo(401);
		assertThat(status("Bearer not-a-token", form("topic", "x"))).isEqualTo(401);
		assertThat(status("Bearer " + none, form("topic", "x"))).isEqualTo(403);
		assertThat(status("Bearer " + selective, form("topic", "https://example.com/theirs/1"))).isEqualTo(403);
		assertThat(status("Bearer " + selective, form("topic", "https://example.com/mine/1"))).isEqualTo(200);
		// Every topic of an update must be granted, its alternates too.
		assertThat(status("Bearer " + selective,
				form("topic", "https://example.com/mine/1", "topic", "https://example.com/theirs/1")))
			.isEqualTo(403);
		assertThat(status("Bearer " + PUBLISHER, form("data", "no topic"))).isEqualTo(400);
		assertThat(status("Bearer " + PUBLISHER, form("topic", "x", "id", "#mine"))).isEqualTo(400);
		assertThat(status("Bearer " + PUBLISHER, form("topic", "x", "type", "a\nb"))).isEqualTo(400);
		assertThat(status("Bearer " + PUBLISHER, form("topic", "x", "retry", "soon"))).isEqualTo(400);
		assertThat(status("Bearer " + PUBLISHER, form("topic", "x", "data", "x".repeat(1_100_000)))).isEqualTo(413);
		assertThat(status("Bearer " + PUBLISHER, form("topic", "/.well-known/mercure/subscriptions/x/y")))
			.isEqualTo(403);
		tokenNode.client()
			.post()
			.uri("/.well-known/mercure")
			.header(HttpHeaders.AUTHORIZATION, "Bearer " + PUBLISHER)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"topic\":\"x\"}")
			.exchange()
			.expectStatus()
			.isEqualTo(415);
		// The cookie publishes only from a page of the hub's origin.
		tokenNode.client()
			.post()
			.uri("/.well-known/mercure")
			.cookie("mercureAuthorization", PUBLISHER)
			.header(HttpHeaders.ORIGIN, "https://elsewhere.example")
			.body(BodyInserters.fromFormData(form("topic", "x")))
			.exchange()
			.expectStatus()
			.isForbidden();
		tokenNode.client()
			.post()
			.uri("/.well-known/mercure")
			.cookie("mercureAuthorization", PUBLISHER)
			.header(HttpHeaders.ORIGIN, tokenNode.baseUrl())
			.body(BodyInserters.fromFormData(form("topic", "x")))
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.contentTypeCompatibleWith(MediaType.TEXT_PLAIN);
	}

	@Test
	void theGatewaysResponsesLinkToTheHubWhenDiscoveryIsOn() {
		anonymousNode.client()
			.get()
			.uri("/actuator/health")
			.exchange()
			.expectHeader()
			.valueEquals(HttpHeaders.LINK, "</.well-known/mercure>; rel=\"mercure\"");
		tokenNode.client().get().uri("/actuator/health").exchange().expectHeader().doesNotExist(HttpHeaders.LINK);
	}

	@Test
	void theSubscriptionsApiIsNotFoundWhileActiveSubscriptionsAreOff() {
		tokenNode.client()
			.get()
			.uri("/.well-known/mercure/subscriptions")
			.header(HttpHeaders.AUTHORIZATION, "Bearer " + subscriber(List.of("*")))
			.exchange()
			.expectStatus()
			.isNotFound()
			.expectHeader()
			.contentType("application/problem+json")
			.expectBody(String.class)
			.value((body) -> assertThat(body).contains("streamgate.mercure.subscriptions"));
	}

	private static int status(String authorization, MultiValueMap<String, String> form) {
		return tokenNode.client().post().uri("/.well-known/mercure").headers((headers) -> {
			if (authorization != null) {
				headers.set(HttpHeaders.AUTHORIZATION, authorization);
			}
		}).body(BodyInserters.fromFormData(form)).exchange().returnResult(String.class).getStatus().value();
	}

	static String publish(RunningGateway node, MultiValueMap<String, String> form) {
		return node.client()
			.post()
			.uri("/.well-known/mercure")
			.header(HttpHeaders.AUTHORIZATION, "Bearer " + PUBLISHER)
			.body(BodyInserters.fromFormData(form))
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
	}

	static MultiValueMap<String, String> form(String... pairs) {
		MultiValueMap<String, String> form = new LinkedMultiValueMap<>();
		for (int i = 0; i < pairs.length; i += 2) {
			form.add(pairs[i], pairs[i + 1]);
		}
		return form;
	}

	static String enc(String value) {
		return java.net.URLEncoder.encode(value, java.nio.charset.StandardCharsets.UTF_8);
	}

	/** An open subscription: its response's Last-Event-ID and the updates it received. */
	static final class Subscription {

		private static final ParameterizedTypeReference<ServerSentEvent<String>> EVENTS = new ParameterizedTypeReference<>() {
		};

		private final CompletableFuture<String> lastEventId = new CompletableFuture<>();

		private final CompletableFuture<Void> opened = new CompletableFuture<>();

		private final CompletableFuture<Void> completed = new CompletableFuture<>();

		private final List<ServerSentEvent<String>> events = new CopyOnWriteArrayList<>();

		private Disposable disposable;

		static Subscription open(RunningGateway node, String query, String lastEventId) {
			return open(node.baseUrl(), query, lastEventId, null, null);
		}

		static Subscription open(String baseUrl, String query, String lastEventId, String authorization,
				String cookie) {
			DefaultUriBuilderFactory uris = new DefaultUriBuilderFactory(baseUrl);
			uris.setEncodingMode(DefaultUriBuilderFactory.EncodingMode.NONE);
			Subscription subscription = new Subscription();
			subscription.disposable = WebClient.builder()
				.uriBuilderFactory(uris)
				.build()
				.get()
				.uri("/.well-known/mercure?" + query)
				.accept(MediaType.TEXT_EVENT_STREAM)
				.headers((headers) -> {
					if (lastEventId != null) {
						headers.set("Last-Event-ID", lastEventId);
					}
					if (authorization != null) {
						headers.set(HttpHeaders.AUTHORIZATION, authorization);
					}
					if (cookie != null) {
						headers.add(HttpHeaders.COOKIE, "mercureAuthorization=" + cookie);
					}
				})
				.exchangeToFlux((response) -> {
					subscription.lastEventId.complete(response.headers().asHttpHeaders().getFirst("Last-Event-ID"));
					return (response.statusCode().value() == 200) ? response.bodyToFlux(EVENTS)
							: Flux.error(new IllegalStateException("status " + response.statusCode()));
				})
				.subscribe((event) -> {
					subscription.opened.complete(null);
					if (event.data() != null) {
						subscription.events.add(event);
					}
				}, subscription.opened::completeExceptionally, () -> subscription.completed.complete(null));
			subscription.opened.orTimeout(30, TimeUnit.SECONDS).join();
			return subscription;
		}

		String lastEventId() {
			return this.lastEventId.join();
		}

		List<ServerSentEvent<String>> events() {
			return this.events;
		}

		CompletableFuture<Void> completed() {
			return this.completed;
		}

		/**
		 * Waits for exactly these ids, in this order, and then a moment for any other.
		 * @param ids the ids
		 * @return the events, which the next wait does not count
		 */
		List<ServerSentEvent<String>> awaitIds(String... ids) {
			await().atMost(Duration.ofSeconds(20)).until(() -> this.events.size() >= ids.length);
			await().pollDelay(Duration.ofMillis(300)).until(() -> true);
			List<ServerSentEvent<String>> received = List.copyOf(this.events);
			assertThat(received).extracting(ServerSentEvent::id).containsExactly(ids);
			this.events.clear();
			return received;
		}

		void close() {
			this.disposable.dispose();
		}

	}

}
