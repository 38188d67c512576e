package dev.streamgate.poller;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import reactor.core.Disposable;

import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.Sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The http-poller against a paginated source behind an OAuth 2.0 token endpoint whose
 * tokens expire every two seconds ({@link PaginatedSource}), over real HTTP, Kafka and
 * SSE.
 */
class PaginatedPollerIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static PaginatedSource source;

	private static RunningGateway gateway;

	private final List<Disposable> streams = new CopyOnWriteArrayList<>();

	@BeforeAll
	static void start() {
		source = new PaginatedSource();
		gateway = RunningGateway.start(GatewayKafka.loopbackArguments());
	}

	@AfterAll
	static void stop() {
		gateway.close();
		source.close();
	}

	@AfterEach
	void closeStreams() {
		this.streams.forEach(Disposable::dispose);
	}

	@Test
	void fivePagesBehindExpiringTokensArePublishedAsOneDocumentAndItsChanges() {
		createTopic("{\"id\":\"paged\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\","
				+ "\"url\":\"" + source.url("/items?page=1") + "\",\"pollingPeriod\":\"PT0.5S\","
				+ "\"pagination\":{\"type\":\"link-header\",\"itemsPointer\":\"/items\"},"
				+ oauth2(PaginatedSource.CLIENT_SECRET) + "}}");
		List<ServerSentEvent<String>> events = follow("paged");
		await().atMost(WAIT).until(() -> !events.isEmpty());
		assertThat(events.get(0).event()).isEqualTo("snapshot");
		JsonStructure document = (JsonStructure) PollerIntegrationTests.parse(events.get(0).data());
		// The first page, with the items of all five concatenated in order.
		assertThat(((JsonObject) document).getInt("page")).isEqualTo(1);
		assertThat(items(document)).isEqualTo(source.items());

		int tokensBefore = source.authorization.tokensIssued();
		int pagesBefore = source.pageRequests.size();
		int unauthorizedBefore = source.unauthorized.get();
		// Six seconds of polls: tokens expire three times, and one is revoked.
		long until = System.currentTimeMillis() + 6000;
		int changes = 0;
		while (System.currentTimeMillis() < until) {
			source.change();
			changes++;
			if (changes == 4) {
				// Right after a token was issued, so that the next poll still has it.
				int issued = source.authorization.tokensIssued();
				await().atMost(WAIT).until(() -> source.authorization.tokensIssued() > issued);
				source.authorization.revokeTokens();
			}
			sleep(Duration.ofMillis(700));
		}
		List<String> expected = source.items();
		await().atMost(WAIT).until(() -> {
			JsonStructure rebuilt = rebuild(events);
			return items(rebuilt).equals(expected);
		});
		assertThat(events).allSatisfy((event) -> assertThat(event.event()).isIn("snapshot", "patch"));
		assertThat(events.stream().filter((event) -> "patch".equals(event.event())).count())
			.as("one patch per published change")
			.isBetween(2L, (long) changes);
		// A patch touches the changed item only: the pages are one document.
		assertThat(events.get(events.size() - 1).data()).contains("/items/10/v").doesNotContain("\"n\"");

		int pageRequests = source.pageRequests.size() - pagesBefore;
		int polls = pageRequests / PaginatedSource.PAGES;
		assertThat(polls).as("polls of five pages").isGreaterThanOrEqualTo(8);
		// Tokens are cached across pages and polls, renewed before they expire (a fifth
		// of
		// their life early), and once more after the revocation's 401.
		assertThat(source.authorization.tokensIssued() - tokensBefore).as("tokens for %d polls", polls)
			.isBetween(3, polls - 1);
		assertThat(source.unauthorized.get() - unauthorizedBefore).as("401s: only the revoked token's").isBetween(1, 2);
		assertThat(source.authorization.requests()).allSatisfy((form) -> {
			assertThat(form).containsEntry("grant_type", "client_credentials")
				.containsEntry("scope", "items:read")
				.containsEntry("audience", "https://api.example.test");
		});
		String status = get("/api/v1/topics/paged/status");
		assertThat(status).doesNotContain("\"outcome\":\"failed\"");
		// The secret is write-only.
		String read = get("/api/v1/topics/paged");
		assertThat(read).doesNotContain(PaginatedSource.CLIENT_SECRET).contains("\"clientSecret\":\"******\"");
		delete("paged");
	}

	@Test
	void aCursorInTheBodyLeadsToTheNextPageUpToMaxPages() {
		createTopic("{\"id\":\"cursor\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\","
				+ "\"url\":\"" + source.url("/cursor?limit=3&cursor=1") + "\",\"pollingPeriod\":\"PT0.5S\","
				+ "\"pagination\":{\"type\":\"json-pointer\",\"nextPointer\":\"/meta/next_cursor\","
				+ "\"cursorParameter\":\"cursor\",\"itemsPointer\":\"/data\",\"maxPages\":3},"
				+ oauth2(PaginatedSource.CLIENT_SECRET) + "}}");
		List<ServerSentEvent<String>> events = follow("cursor");
		await().atMost(WAIT).untilAsserted(() -> assertThat(events).as(source.pageRequests.toString()).isNotEmpty());
		JsonStructure document = (JsonStructure) PollerIntegrationTests.parse(events.get(0).data());
		JsonValue data = document.getValue("/data");
		assertThat(data.asJsonArray().stream().map(JsonValue::toString).toList())
			.isEqualTo(source.items().subList(0, 3 * PaginatedSource.PER_PAGE));
		// The cursor replaces the first page's, the other parameters stay.
		await().atMost(WAIT).until(() -> source.pageRequests.contains("/cursor?limit=3&cursor=3"));
		assertThat(source.pageRequests).doesNotContain("/cursor?limit=3&cursor=4");
		await().atMost(WAIT)
			.untilAsserted(
					() -> assertThat(get("/api/v1/topics/cursor/status")).contains("more than maxPages (3) pages"));
		delete("cursor");
	}

	@Test
	void refusedCredentialsAndLoopingPagesAreProblemEventsAndAStatus() {
		createTopic("{\"id\":\"refused\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\","
				+ "\"url\":\"" + source.url("/items?page=1") + "\",\"pollingPeriod\":\"PT0.5S\","
				+ "\"pagination\":{\"type\":\"link-header\",\"itemsPointer\":\"/items\"}," + oauth2("wrong-secret")
				+ "}}");
		createTopic("{\"id\":\"looping\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-poller\","
				+ "\"url\":\"" + source.url("/loop") + "\",\"pollingPeriod\":\"PT0.5S\","
				+ "\"pagination\":{\"type\":\"link-header\",\"itemsPointer\":\"/items\"},"
				+ oauth2(PaginatedSource.CLIENT_SECRET) + "}}");
		// A snapshot topic that never had a document: a live subscriber gets the problem
		// that says why instead of a snapshot, though it was published before it joined.
		sleep(Duration.ofSeconds(1));
		List<ServerSentEvent<String>> refused = follow("refused");
		// From the start: the first poll may fail before the stream joins.
		List<ServerSentEvent<String>> looping = follow("looping", "event&lastEventId=earliest");
		await().atMost(WAIT).until(() -> !refused.isEmpty() && !looping.isEmpty());
		assertThat(refused.get(0).event()).isEqualTo("problem");
		assertThat(refused.get(0).data()).contains("problems/source-auth")
			.contains("invalid_client")
			.doesNotContain("wrong-secret");
		assertThat(looping.get(0).event()).isEqualTo("problem");
		assertThat(looping.get(0).data()).contains("problems/source-pagination").contains("the pages loop");
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(get("/api/v1/topics/refused/status")).contains("\"outcome\":\"failed\"")
				.contains("invalid_client")
				.doesNotContain("wrong-secret"));
		// One problem per failure, not one per poll.
		sleep(Duration.ofSeconds(2));
		assertThat(refused).hasSize(1);
		delete("refused");
		delete("looping");
	}

	@Test
	void badDefinitionsAreRefusedNamingTheField() {
		String url = source.url("/items");
		assertRefused("{\"pagination\":{\"itemsPointer\":\"/items\"}}", url, "/publisher/pagination/type");
		assertRefused("{\"pagination\":{\"type\":\"json-pointer\"}}", url, "/publisher/pagination/nextPointer");
		assertRefused("{\"pagination\":{\"type\":\"link-header\",\"maxPages\":0}}", url,
				"/publisher/pagination/maxPages");
		assertRefused("{\"pagination\":{\"type\":\"link-header\",\"itemsPointer\":\"items\"}}", url,
				"/publisher/pagination/itemsPointer");
		assertRefused("{\"pagination\":{\"type\":\"sideways\"}}", url, "/publisher/pagination/type");
		assertRefused("{\"oauth2\":{\"tokenUrl\":\"" + source.url("/token") + "\",\"clientId\":\"a\"}}", url,
				"/publisher/oauth2/clientSecret");
		assertRefused("{\"oauth2\":{\"tokenUrl\":\"ftp://auth.example.test/token\",\"clientId\":\"a\","
				+ "\"clientSecret\":\"b\"}}", url, "/publisher/oauth2/tokenUrl");
		// A token endpoint inside the operator's network is refused like a source there.
		assertRefused("{\"oauth2\":{\"tokenUrl\":\"http://127.0.0.2:9/token\",\"clientId\":\"a\","
				+ "\"clientSecret\":\"b\"}}", url, "/publisher/oauth2/tokenUrl");

		createTopic("{\"id\":\"moving\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\","
				+ "\"url\":\"" + url + "\"," + oauth2(PaginatedSource.CLIENT_SECRET) + "}}");
		// Sending back the mask keeps the secret; moving the token URL needs it again.
		patch("moving", "{\"publisher\":{\"oauth2\":{\"clientSecret\":\"******\",\"scope\":\"other\"}}}", 200);
		String moved = "{\"publisher\":{\"oauth2\":{\"tokenUrl\":\"" + source.url("/token?elsewhere")
				+ "\",\"clientSecret\":\"******\"}}}";
		assertThat(patch("moving", moved, 400)).contains("/publisher/oauth2/clientSecret");
		patch("moving", "{\"publisher\":{\"oauth2\":{\"tokenUrl\":\"" + source.url("/token?elsewhere")
				+ "\",\"clientSecret\":\"new\"}}}", 200);
		assertThat(get("/api/v1/topics/moving")).contains("\"scope\":\"other\"").doesNotContain("\"new\"");
		delete("moving");
	}

	private static String oauth2(String secret) {
		return "\"oauth2\":{\"tokenUrl\":\"" + source.url("/token") + "\",\"clientId\":\"" + PaginatedSource.CLIENT_ID
				+ "\",\"clientSecret\":\"" + secret
				+ "\",\"scope\":\"items:read\",\"audience\":\"https://api.example.test\"}";
	}

	private static void assertRefused(String publisherFields, String url, String pointer) {
		String body = "{\"id\":\"bad\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\","
				+ "\"url\":\"" + url + "\"," + publisherFields.substring(1, publisherFields.length() - 1) + "}}";
		String problem = gateway.client()
			.post()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(body)
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectHeader()
			.contentType("application/problem+json")
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		assertThat(problem).as(publisherFields).contains("\"pointer\":\"" + pointer + "\"");
	}

	private static List<String> items(JsonStructure document) {
		return document.getValue("/items").asJsonArray().stream().map(JsonValue::toString).toList();
	}

	private static JsonStructure rebuild(List<ServerSentEvent<String>> events) {
		JsonStructure document = null;
		for (ServerSentEvent<String> event : List.copyOf(events)) {
			JsonValue data = PollerIntegrationTests.parse(event.data());
			document = "snapshot".equals(event.event()) ? (JsonStructure) data
					: Json.createPatch(data.asJsonArray()).apply(document);
		}
		return document;
	}

	private List<ServerSentEvent<String>> follow(String topic) {
		return follow(topic, "snapshot-patch");
	}

	private List<ServerSentEvent<String>> follow(String topic, String mode) {
		List<ServerSentEvent<String>> events = new CopyOnWriteArrayList<>();
		this.streams.add(new Sse(gateway.baseUrl()).stream("/api/v1/stream/" + topic + "?mode=" + mode, null)
			.subscribe(events::add));
		return events;
	}

	private static void createTopic(String json) {
		gateway.client()
			.post()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(json)
			.exchange()
			.expectStatus()
			.isCreated();
	}

	private static String patch(String id, String json, int status) {
		return gateway.patch("/api/v1/topics/" + id, json, status);
	}

	private static String get(String path) {
		return gateway.get(path);
	}

	private static void delete(String id) {
		gateway.client().delete().uri("/api/v1/topics/" + id).exchange().expectStatus().isNoContent();
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
