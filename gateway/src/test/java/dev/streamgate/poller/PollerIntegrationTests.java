package dev.streamgate.poller;

import java.io.StringReader;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.client.WebClient;
import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import dev.streamgate.bench.source.MockSourceApi;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.Sse;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The http-poller publisher against the mock source API, over real HTTP, Kafka and SSE.
 */
class PollerIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static MockSourceApi source;

	private static RunningGateway gateway;

	private static WebClient sourceClient;

	private final List<Disposable> streams = new CopyOnWriteArrayList<>();

	@BeforeAll
	static void start() {
		source = MockSourceApi.start(MockSourceApi.Settings.forTests());
		sourceClient = WebClient.create("http://127.0.0.1:" + source.port());
		List<String> args = new java.util.ArrayList<>(List.of(GatewayKafka.arguments(TestKafka.uniquePrefix())));
		// The mock listens on 127.0.0.1; other loopback addresses stay refused.
		args.add("--streamgate.egress.allowed-cidrs=127.0.0.1/32");
		args.add("--streamgate.poller.max-body=256KB");
		gateway = RunningGateway.start(args.toArray(String[]::new));
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
	void aSnapshotPatchSubscriberRebuildsTheSourceDocumentExactlyPollAfterPoll() {
		createTopic(
				"{\"id\":\"rebuilt\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\",\"url\":\""
						+ source.url("rebuilt") + "?size=4000&change=0.2\",\"pollingPeriod\":\"PT0.5S\"}}");
		List<ServerSentEvent<String>> events = follow("rebuilt", "snapshot-patch");
		await().atMost(WAIT).until(() -> events.size() >= 12);
		assertThat(events.get(0).event()).isEqualTo("snapshot");
		JsonStructure document = null;
		long lastVersion = 0;
		for (ServerSentEvent<String> event : events.subList(0, 12)) {
			document = switch (event.event()) {
				case "snapshot" -> (JsonStructure) parse(event.data());
				case "patch" -> Json.createPatch(parse(event.data()).asJsonArray()).apply(document);
				default -> throw new AssertionError("unexpected " + event.event() + ": " + event.data());
			};
			long version = ((JsonObject) document).getJsonNumber("version").longValue();
			assertThat(version).isGreaterThan(lastVersion);
			lastVersion = version;
			String served = sourceClient.get()
				.uri("/documents/rebuilt/versions/" + version)
				.retrieve()
				.bodyToMono(String.class)
				.block(WAIT);
			assertThat(document).as("version %d", version).isEqualTo(parse(served));
		}
		assertThat(events.subList(1, 12)).allSatisfy((event) -> assertThat(event.event()).isEqualTo("patch"));
	}

	@Test
	void anUnchangedSourceAnswers304AndPublishesNothingMore() {
		createTopic("{\"id\":\"steady\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\",\"url\":\""
				+ source.url("steady") + "?change=0\",\"pollingPeriod\":\"PT0.5S\"}}");
		await().atMost(WAIT)
			.until(() -> metric("streamgate_poller_polls_total", "outcome=\"not-modified\"", "topic=\"steady\"") >= 3);
		String status = gateway.client()
			.get()
			.uri("/api/v1/topics/steady/status")
			.exchange()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		assertThat(status).containsPattern("\"position\":\"[0-9a-z]+:0\"").contains("\"outcome\":\"not-modified\"");
		assertThat(metric("streamgate_poller_changes_total", "topic=\"steady\"")).isEqualTo(1);
		assertThat(metric("streamgate_poller_fetched_bytes_total", "topic=\"steady\"")).isPositive();
	}

	@Test
	void eachSourceFailureReachesSubscribersAsAnErrorEventAndPollingRecovers() {
		createTopic("{\"id\":\"flaky\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\",\"url\":\""
				+ source.url("flaky") + "\",\"pollingPeriod\":\"PT0.5S\",\"timeout\":\"PT1S\","
				+ "\"retry\":{\"maxAttempts\":2,\"initialBackoff\":\"PT0.05S\",\"maxBackoff\":\"PT0.1S\"}}}");
		List<ServerSentEvent<String>> events = follow("flaky", "snapshot-patch");
		await().atMost(WAIT).until(() -> events.size() >= 2);
		String elsewhere = "http://127.0.0.2:" + source.port() + "/documents/flaky";
		List<List<String>> faults = List.of(List.of("status:503", "source-status"),
				List.of("garbage", "source-not-json"), List.of("huge:600000", "source-too-large"),
				List.of("slow:3000", "source-timeout"), List.of("redirect-loop", "source-redirects"),
				List.of("redirect-to:" + elsewhere, "source-refused"));
		int from = events.size();
		for (List<String> fault : faults) {
			injectFault("flaky", fault.get(0));
			int errorAt = awaitEvent(events, "problem", from);
			assertThat(events.get(errorAt).data()).as(fault.get(0))
				.contains("\"type\":\"https://streamgate.dev/problems/" + fault.get(1) + "\"")
				.contains("\"topic\":\"flaky\"");
			injectFault("flaky", "none");
			from = awaitEvent(events, "patch", errorAt + 1) + 1;
		}
		// One problem event per failure, not one per failed poll.
		assertThat(events.stream().filter((event) -> "problem".equals(event.event()))).hasSize(faults.size());
		String retried = events.stream().filter((event) -> "problem".equals(event.event())).findFirst().get().data();
		assertThat(retried).contains("\"sourceStatus\":503").contains("\"attempts\":2");
	}

	@Test
	void aRedirectToARefusedAddressLeaksNoSocket() throws Exception {
		// Each poll redirected to a refused address used to leak one socket (fds
		// 820 -> 850 in 30 s) and logged an onErrorDropped ERROR.
		createTopic("{\"id\":\"leaky\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\",\"url\":\""
				+ source.url("leaky") + "\",\"pollingPeriod\":\"PT0.5S\",\"retry\":{\"maxAttempts\":1}}}");
		injectFault("leaky", "redirect-to:http://10.255.255.1/documents/elsewhere");
		await().atMost(WAIT)
			.until(() -> metric("streamgate_poller_polls_total", "outcome=\"failed\"", "topic=\"leaky\"") >= 2);
		long before = openFiles();
		double polls = metric("streamgate_poller_polls_total", "outcome=\"failed\"", "topic=\"leaky\"");
		await().atMost(WAIT)
			.until(() -> metric("streamgate_poller_polls_total", "outcome=\"failed\"", "topic=\"leaky\"") >= polls
					+ 20);
		assertThat(openFiles() - before).as("file descriptors opened by 20 refused redirects").isLessThan(5);
		gateway.client().delete().uri("/api/v1/topics/leaky").exchange().expectStatus().isNoContent();
	}

	@Test
	void configuredHeadersStayWithTheSourcesOrigin() {
		// A redirect to another host used to receive X-Api-Key.
		List<HttpHeaders> seen = new CopyOnWriteArrayList<>();
		DisposableServer other = recordingSource(seen, "{\"moved\":true}");
		try {
			createTopic(
					"{\"id\":\"moved\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\",\"url\":\""
							+ source.url("moved") + "\",\"pollingPeriod\":\"PT0.5S\","
							+ "\"headers\":{\"X-Api-Key\":\"k-123\",\"Authorization\":\"Bearer t-456\"}}}");
			injectFault("moved", "redirect-to:http://127.0.0.1:" + other.port() + "/elsewhere");
			await().atMost(WAIT).until(() -> seen.size() >= 2);
			assertThat(seen).allSatisfy((headers) -> {
				assertThat(headers.contains("X-Api-Key")).isFalse();
				assertThat(headers.contains("Authorization")).isFalse();
				assertThat(headers.get("User-Agent")).startsWith("streamgate-poller/1");
			});
			gateway.client().delete().uri("/api/v1/topics/moved").exchange().expectStatus().isNoContent();
		}
		finally {
			other.disposeNow();
		}
	}

	@Test
	void pollerHeadersAreWriteOnlyAndKeptWhenSentBackMasked() {
		// GET and list used to return the poller's Authorization header in clear.
		List<HttpHeaders> seen = new CopyOnWriteArrayList<>();
		DisposableServer api = recordingSource(seen, "{\"v\":1}");
		try {
			createTopic("{\"id\":\"guarded\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\","
					+ "\"url\":\"http://127.0.0.1:" + api.port() + "/doc\",\"pollingPeriod\":\"PT0.5S\","
					+ "\"headers\":{\"X-Api-Key\":\"k-123\"}}}");
			String read = gateway.client()
				.get()
				.uri("/api/v1/topics/guarded")
				.exchange()
				.expectBody(String.class)
				.returnResult()
				.getResponseBody();
			assertThat(read).doesNotContain("k-123").contains("\"X-Api-Key\":\"******\"");
			assertThat(gateway.client()
				.get()
				.uri("/api/v1/topics?size=100")
				.exchange()
				.expectBody(String.class)
				.returnResult()
				.getResponseBody()).doesNotContain("k-123");
			// A client that sends back what it read keeps the stored value.
			patchTopic("guarded",
					"{\"name\":\"renamed\",\"publisher\":{\"type\":\"http-poller\",\"url\":\"http://127.0.0.1:"
							+ api.port()
							+ "/doc\",\"pollingPeriod\":\"PT0.5S\",\"headers\":{\"X-Api-Key\":\"******\"}}}");
			int before = seen.size();
			await().atMost(WAIT).until(() -> seen.size() >= before + 2);
			assertThat(seen.subList(before, seen.size()))
				.allSatisfy((headers) -> assertThat(headers.get("X-Api-Key")).isEqualTo("k-123"));
			gateway.client().delete().uri("/api/v1/topics/guarded").exchange().expectStatus().isNoContent();
		}
		finally {
			api.disposeNow();
		}
	}

	/**
	 * A source on another port than the mock's that answers a document and keeps each
	 * request's headers.
	 */
	private static DisposableServer recordingSource(List<HttpHeaders> seen, String document) {
		return HttpServer.create().host("127.0.0.1").port(0).handle((request, response) -> {
			seen.add(request.requestHeaders().copy());
			return response.header("Content-Type", "application/json").sendString(Mono.just(document));
		}).bindNow();
	}

	private static long openFiles() throws java.io.IOException {
		try (java.util.stream.Stream<java.nio.file.Path> fds = java.nio.file.Files
			.list(java.nio.file.Path.of("/proc/self/fd"))) {
			return fds.count();
		}
	}

	@Test
	void refusedConnectionsAndTlsFailuresAreErrorEvents() {
		createTopic("{\"id\":\"closed-port\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-poller\","
				+ "\"url\":\"http://127.0.0.1:1/nothing\",\"pollingPeriod\":\"PT0.5S\","
				+ "\"retry\":{\"maxAttempts\":1}}}");
		createTopic("{\"id\":\"not-tls\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-poller\","
				+ "\"url\":\"https://127.0.0.1:" + source.port() + "/documents/plain\",\"pollingPeriod\":\"PT0.5S\"}}");
		List<ServerSentEvent<String>> refused = follow("closed-port", "event", "earliest");
		List<ServerSentEvent<String>> tls = follow("not-tls", "event", "earliest");
		await().atMost(WAIT).until(() -> !refused.isEmpty() && !tls.isEmpty());
		assertThat(refused.get(0).event()).isEqualTo("problem");
		assertThat(refused.get(0).data()).contains("problems/source-unreachable");
		assertThat(tls.get(0).event()).isEqualTo("problem");
		assertThat(tls.get(0).data()).contains("problems/source-tls");
	}

	@Test
	void anEventTopicPublishesThePayloadAtItsPointerWhenItChanges() {
		createTopic(
				"{\"id\":\"first-item\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-poller\",\"url\":\""
						+ source.url("first-item") + "?size=30&change=1\",\"pollingPeriod\":\"PT0.5S\","
						+ "\"payloadPointer\":\"/items/0\"}}");
		List<ServerSentEvent<String>> events = follow("first-item", "event", "earliest");
		await().atMost(WAIT).until(() -> events.size() >= 3);
		for (ServerSentEvent<String> event : events.subList(0, 3)) {
			assertThat(event.event()).isEqualTo("event");
			assertThat(parse(event.data()).asJsonObject().keySet()).containsExactly("id", "value");
		}
	}

	@Test
	void changesOfTheDefinitionApplyAtTheNextPollAndDeletionStopsPolling() {
		createTopic("{\"id\":\"moving\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\",\"url\":\""
				+ source.url("before") + "\",\"pollingPeriod\":\"PT0.5S\"}}");
		await().atMost(WAIT).until(() -> requests("before").size() >= 2);
		patchTopic("moving", "{\"publisher\":{\"url\":\"" + source.url("after")
				+ "\",\"headers\":{\"User-Agent\":\"probe-after\"}}}");
		await().atMost(WAIT).until(() -> requests("after").size() >= 2);
		assertThat(requests("after")).allSatisfy((request) -> assertThat(request).contains("probe-after"));
		int before = requests("before").size();
		patchTopic("moving", "{\"publisher\":{\"pollingPeriod\":\"PT1H\"}}");
		// At most the poll in flight (and the one scheduled at the old period) still
		// happen.
		sleep(Duration.ofSeconds(2));
		int settled = requests("after").size();
		sleep(Duration.ofSeconds(2));
		assertThat(requests("after")).hasSize(settled);
		assertThat(requests("before")).hasSize(before);

		patchTopic("moving", "{\"publisher\":{\"pollingPeriod\":\"PT0.5S\"}}");
		// The hour-long wait is already scheduled: it applies to the poll after it. A new
		// topic definition of the same id starts afresh, which deletion and re-creation
		// show below.
		gateway.client().delete().uri("/api/v1/topics/moving").exchange().expectStatus().isNoContent();
		createTopic("{\"id\":\"moving\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\",\"url\":\""
				+ source.url("again") + "\",\"pollingPeriod\":\"PT0.5S\"}}");
		await().atMost(WAIT).until(() -> requests("again").size() >= 2);
		gateway.client().delete().uri("/api/v1/topics/moving").exchange().expectStatus().isNoContent();
		sleep(Duration.ofSeconds(1));
		int afterDelete = requests("again").size();
		sleep(Duration.ofSeconds(2));
		assertThat(requests("again")).hasSize(afterDelete);
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static int awaitEvent(List<ServerSentEvent<String>> events, String type, int from) {
		await().atMost(WAIT)
			.until(() -> events.subList(from, events.size()).stream().anyMatch((event) -> type.equals(event.event())));
		for (int i = from; i < events.size(); i++) {
			if (type.equals(events.get(i).event())) {
				return i;
			}
		}
		throw new AssertionError("no " + type);
	}

	static void injectFault(String document, String fault) {
		sourceClient.put()
			.uri("/documents/" + document + "/fault")
			.bodyValue(fault)
			.retrieve()
			.toBodilessEntity()
			.block(WAIT);
	}

	static List<String> requests(String document) {
		JsonValue requests = parse(sourceClient.get()
			.uri("/documents/" + document + "/requests")
			.retrieve()
			.bodyToMono(String.class)
			.block(WAIT));
		return requests.asJsonArray().stream().map(JsonValue::toString).toList();
	}

	private List<ServerSentEvent<String>> follow(String topic, String mode) {
		return follow(topic, mode, null);
	}

	private List<ServerSentEvent<String>> follow(String topic, String mode, String lastEventId) {
		List<ServerSentEvent<String>> events = new CopyOnWriteArrayList<>();
		String query = "?mode=" + mode + ((lastEventId != null) ? "&lastEventId=" + lastEventId : "");
		this.streams
			.add(new Sse(gateway.baseUrl()).stream("/api/v1/stream/" + topic + query, null).subscribe(events::add));
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

	private static void patchTopic(String id, String json) {
		gateway.client()
			.patch()
			.uri("/api/v1/topics/" + id)
			.contentType(MediaType.parseMediaType("application/merge-patch+json"))
			.bodyValue(json)
			.exchange()
			.expectStatus()
			.isOk();
	}

	/** The sum of a metric's series that carry all the given labels. */
	static double metric(String name, String... labels) {
		String scrape = gateway.client()
			.get()
			.uri("/actuator/prometheus")
			.exchange()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		return scrape.lines()
			.filter((line) -> line.startsWith(name + "{") || line.startsWith(name + " "))
			.filter((line) -> java.util.Arrays.stream(labels).allMatch(line::contains))
			.mapToDouble((line) -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
			.sum();
	}

	static JsonValue parse(String json) {
		try (JsonReader reader = Json.createReader(new StringReader(json))) {
			return reader.readValue();
		}
	}

}
