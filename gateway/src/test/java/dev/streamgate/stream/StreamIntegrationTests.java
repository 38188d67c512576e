package dev.streamgate.stream;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import jakarta.json.Json;
import jakarta.json.JsonStructure;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.support.Cursors;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.ProblemAssertions;
import dev.streamgate.support.RandomDocuments;
import dev.streamgate.support.Sse;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "streamgate.follow.recent-events=8", "streamgate.sse.heartbeat=1s",
				"streamgate.snapshots.checkpoint-every=1" })
@AutoConfigureWebTestClient
class StreamIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	@DynamicPropertySource
	static void kafka(DynamicPropertyRegistry registry) {
		GatewayKafka.register(registry);
	}

	@Autowired
	private WebTestClient client;

	@LocalServerPort
	private int port;

	@Value("${streamgate.kafka.topic-prefix}")
	private String prefix;

	private Sse sse() {
		return new Sse("http://localhost:" + this.port);
	}

	private void createTopic(String json) {
		this.client.post()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(json)
			.exchange()
			.expectStatus()
			.isCreated();
	}

	private void publish(String topic, String json) {
		this.client.post()
			.uri("/api/v1/publish/" + topic)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(json)
			.exchange()
			.expectStatus()
			.isAccepted();
	}

	private void publishBatch(String topic, List<String> lines) {
		this.client.post()
			.uri("/api/v1/publish/" + topic)
			.contentType(MediaType.parseMediaType("application/x-ndjson"))
			.bodyValue(String.join("\n", lines))
			.exchange()
			.expectStatus()
			.isAccepted();
	}

	/** Subscribes, waits until the stream is open (its retry line), then publishes. */
	private List<ServerSentEvent<String>> receive(String path, String lastEventId, int count, Runnable publisher) {
		return sse().takeAfter(path, lastEventId, count, publisher);
	}

	private static List<String> data(List<ServerSentEvent<String>> events) {
		return events.stream().map(ServerSentEvent::data).toList();
	}

	@Test
	void eventModeDeliversEachPublicationWithACursor() {
		createTopic("{\"id\":\"live-events\"}");
		List<String> published = new CopyOnWriteArrayList<>();
		List<ServerSentEvent<String>> events = receive("/api/v1/stream/live-events", null, 5,
				() -> IntStream.range(0, 5)
					.forEach((i) -> published.add(publishedId("live-events", "{\"n\":" + i + "}"))));
		assertThat(data(events)).containsExactly("{\"n\":0}", "{\"n\":1}", "{\"n\":2}", "{\"n\":3}", "{\"n\":4}");
		assertThat(events).extracting(ServerSentEvent::event).containsOnly("event");
		// Each event's id is what its publish answered.
		assertThat(events).extracting(ServerSentEvent::id).containsExactlyElementsOf(published);
	}

	@Test
	void snapshotPatchModeRebuildsEveryPublishedDocument() {
		createTopic("{\"id\":\"doc-patch\",\"payloadType\":\"snapshot\"}");
		List<JsonStructure> documents = new ArrayList<>();
		documents.add(doc("{\"prices\":[{\"s\":\"A\",\"p\":1.5}],\"meta\":{\"v\":1}}"));
		documents.add(doc("{\"prices\":[{\"s\":\"A\",\"p\":1.6},{\"s\":\"B\",\"p\":2}],\"meta\":{\"v\":2}}"));
		documents.add(doc("{\"prices\":[{\"s\":\"B\",\"p\":2}],\"meta\":{\"v\":3,\"tags\":[\"x\"]}}"));
		documents.add(doc("{\"prices\":[],\"meta\":{\"v\":4,\"tags\":[\"x\",\"y/z\"]},\"new\":null}"));
		documents.add(doc("[1,2,{\"a\":[3]}]"));
		publish("doc-patch", new String(JsonPatches.write(documents.get(0)), StandardCharsets.UTF_8));
		List<ServerSentEvent<String>> events = receive("/api/v1/stream/doc-patch?mode=snapshot-patch", null,
				documents.size(), () -> documents.subList(1, documents.size())
					.forEach((d) -> publish("doc-patch", new String(JsonPatches.write(d), StandardCharsets.UTF_8))));
		assertThat(events.get(0).event()).isEqualTo("snapshot");
		JsonStructure rebuilt = doc(events.get(0).data());
		assertThat(rebuilt).isEqualTo(documents.get(0));
		for (int i = 1; i < documents.size(); i++) {
			assertThat(events.get(i).event()).isEqualTo("patch");
			rebuilt = JsonPatches.apply(rebuilt,
					Json.createReader(new java.io.StringReader(events.get(i).data())).readArray());
			assertThat(rebuilt).isEqualTo(documents.get(i));
		}
	}

	@ParameterizedTest
	@ValueSource(longs = { 7, 8, 9 })
	void patchesOverHttpRebuildRandomDocumentsExactly(long seed) {
		String topic = "random-" + seed;
		createTopic("{\"id\":\"" + topic + "\",\"payloadType\":\"snapshot\"}");
		RandomDocuments random = new RandomDocuments(seed);
		List<JsonStructure> documents = new ArrayList<>();
		documents.add(random.document(seed == 9));
		while (documents.size() < 25) {
			JsonStructure next = random.mutate(documents.get(documents.size() - 1));
			if (!next.equals(documents.get(documents.size() - 1))) {
				documents.add(next);
			}
		}
		publish(topic, new String(JsonPatches.write(documents.get(0)), StandardCharsets.UTF_8));
		List<ServerSentEvent<String>> events = receive("/api/v1/stream/" + topic, null, documents.size(),
				() -> documents.subList(1, documents.size())
					.forEach((d) -> publish(topic, new String(JsonPatches.write(d), StandardCharsets.UTF_8))));
		JsonStructure rebuilt = doc(events.get(0).data());
		assertThat(rebuilt).isEqualTo(documents.get(0));
		for (int i = 1; i < documents.size(); i++) {
			rebuilt = JsonPatches.apply(rebuilt,
					Json.createReader(new java.io.StringReader(events.get(i).data())).readArray());
			assertThat(rebuilt).as("document %d of seed %d", i, seed).isEqualTo(documents.get(i));
		}
	}

	@Test
	void aCursorOlderThanWhatIsRetainedGetsPositionExpiredThenTheLiveStream() throws Exception {
		// Dedicated: retention is simulated by deleting records of their own Kafka
		// topics.
		createTopic("{\"id\":\"expiring\",\"storage\":\"dedicated\"}");
		createTopic("{\"id\":\"expiring-doc\",\"payloadType\":\"snapshot\",\"storage\":\"dedicated\"}");
		publishBatch("expiring", IntStream.range(0, 10).mapToObj((i) -> "{\"n\":" + i + "}").toList());
		for (int v = 0; v < 10; v++) {
			publish("expiring-doc", "{\"v\":" + v + "}");
		}
		// What retention does to old events, done now: the log starts at offset 6.
		try (Admin admin = Admin
			.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
			admin.deleteRecords(Map.of(new TopicPartition(this.prefix + "events.expiring", 0),
					RecordsToDelete.beforeOffset(6), new TopicPartition(this.prefix + "events.expiring-doc", 0),
					RecordsToDelete.beforeOffset(6)))
				.all()
				.get();
		}
		List<ServerSentEvent<String>> events = receive("/api/v1/stream/expiring", at("expiring", "1"), 2,
				() -> publish("expiring", "{\"n\":\"live\"}"));
		assertThat(events.get(0).event()).isEqualTo("problem");
		assertThat(events.get(0).data()).contains("https://streamgate.dev/problems/position-expired");
		assertThat(events.get(1).data()).isEqualTo("{\"n\":\"live\"}");
		List<ServerSentEvent<String>> ahead = receive("/api/v1/stream/expiring", at("expiring", "999999"), 2,
				() -> publish("expiring", "{\"n\":\"after\"}"));
		assertThat(ahead.get(0).data()).contains("https://streamgate.dev/problems/position-unknown");
		assertThat(ahead.get(1).data()).isEqualTo("{\"n\":\"after\"}");
		List<ServerSentEvent<String>> document = sse().take("/api/v1/stream/expiring-doc", at("expiring-doc", "1"), 1);
		assertThat(document.get(0).event()).isEqualTo("snapshot");
		assertThat(document.get(0).data()).isEqualTo("{\"v\":9}");
	}

	@Test
	void unchangedDocumentsPublishNothingAndSnapshotOnlySendsWholeDocuments() {
		createTopic("{\"id\":\"doc-only\",\"payloadType\":\"snapshot\"}");
		List<String> published = new CopyOnWriteArrayList<>();
		published.add(publishedId("doc-only", "{\"v\":1}"));
		List<ServerSentEvent<String>> events = receive("/api/v1/stream/doc-only?mode=snapshot-only", null, 3, () -> {
			this.client.post()
				.uri("/api/v1/publish/doc-only")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{ \"v\" : 1 }")
				.exchange()
				.expectStatus()
				.isAccepted()
				.expectBody()
				.jsonPath("$.changed")
				.isEqualTo(false);
			published.add(publishedId("doc-only", "{\"v\":2}"));
			published.add(publishedId("doc-only", "{\"v\":3}"));
		});
		assertThat(events).extracting(ServerSentEvent::event).containsOnly("snapshot");
		assertThat(data(events)).containsExactly("{\"v\":1}", "{\"v\":2}", "{\"v\":3}");
		// Each live event's id is what its publish answered. The document a subscriber
		// joins with is at the position its follower reached, which may count the marker
		// that committed the publication's transaction: after the publication, before
		// the next one.
		assertThat(events.subList(1, 3)).extracting(ServerSentEvent::id)
			.containsExactlyElementsOf(published.subList(1, 3));
		long joined = Long.parseLong(Cursors.offsets(events.get(0).id()));
		assertThat(joined).isGreaterThanOrEqualTo(Long.parseLong(Cursors.offsets(published.get(0))))
			.isLessThan(Long.parseLong(Cursors.offsets(published.get(1))));
	}

	@Test
	void resumeDeliversExactlyTheEventsAfterTheCursorHeaderWinningOverParameter() {
		createTopic("{\"id\":\"resumed\"}");
		publishBatch("resumed", IntStream.range(0, 6).mapToObj((i) -> "{\"n\":" + i + "}").toList());
		// The ids as a client sees them (positions in the shared log, not 0 to 5).
		List<ServerSentEvent<String>> all = sse().take("/api/v1/stream/resumed?lastEventId=earliest", null, 6);
		assertThat(data(all)).startsWith("{\"n\":0}").hasSize(6);
		List<String> ids = all.stream().map(ServerSentEvent::id).toList();
		// From the recent events kept in memory
		assertThat(data(sse().take("/api/v1/stream/resumed", ids.get(3), 2))).containsExactly("{\"n\":4}", "{\"n\":5}");
		assertThat(data(sse().take("/api/v1/stream/resumed?lastEventId=" + ids.get(1), null, 1)))
			.containsExactly("{\"n\":2}");
		assertThat(data(sse().take("/api/v1/stream/resumed?lastEventId=" + ids.get(0), ids.get(4), 1)))
			.containsExactly("{\"n\":5}");
		// Older than the recent events (8 kept): read back from Kafka, then live
		publishBatch("resumed", IntStream.range(6, 30).mapToObj((i) -> "{\"n\":" + i + "}").toList());
		List<ServerSentEvent<String>> fromKafka = receive("/api/v1/stream/resumed", ids.get(2), 28,
				() -> publish("resumed", "{\"n\":30}"));
		assertThat(data(fromKafka))
			.containsExactlyElementsOf(IntStream.rangeClosed(3, 30).mapToObj((i) -> "{\"n\":" + i + "}").toList());
		// Offsets grow but are not contiguous: each batch's transaction marker takes one.
		assertThat(fromKafka.stream().map((event) -> Cursors.offsets(event.id())).map(Long::parseLong).toList())
			.isSorted()
			.doesNotHaveDuplicates()
			.allSatisfy((id) -> assertThat(id).isGreaterThan(Long.parseLong(Cursors.offsets(ids.get(2)))));
	}

	@Test
	void resumeOnAThreePartitionTopicHasNoGapAndNoDuplicate() {
		createTopic("{\"id\":\"spread\",\"partitions\":3}");
		List<String> received = new ArrayList<>();
		List<ServerSentEvent<String>> first = receive("/api/v1/stream/spread", null, 10,
				() -> publishBatch("spread", IntStream.range(0, 30).mapToObj((i) -> "{\"n\":" + i + "}").toList()));
		received.addAll(data(first));
		String cursor = first.get(first.size() - 1).id();
		assertThat(Cursors.offsets(cursor)).matches("-?\\d+\\.-?\\d+\\.-?\\d+");
		publishBatch("spread", IntStream.range(30, 60).mapToObj((i) -> "{\"n\":" + i + "}").toList());
		List<ServerSentEvent<String>> rest = sse().take("/api/v1/stream/spread", cursor, 50);
		received.addAll(data(rest));
		assertThat(received).doesNotHaveDuplicates()
			.containsExactlyInAnyOrderElementsOf(IntStream.range(0, 60).mapToObj((i) -> "{\"n\":" + i + "}").toList());
		assertThat(rest.stream().map(ServerSentEvent::id).collect(Collectors.toSet())).hasSize(50);
	}

	@Test
	void aPublishAnswersAnIdThatResumesExactlyAfterItOnEveryPartition() {
		createTopic("{\"id\":\"orders-spread\",\"partitions\":4}");
		List<String> ids = new ArrayList<>();
		// Keys spread the publications over the partitions; each is acknowledged before
		// the next is sent, so "after" is the order of publication.
		IntStream.range(0, 24).forEach((i) -> ids.add(publishedId("orders-spread?key=k" + i, "{\"n\":" + i + "}")));
		assertThat(ids.stream().map(Cursors::offsets).map((offsets) -> offsets.split("\\.").length)).containsOnly(4);
		for (int k : new int[] { 5, 17 }) {
			List<ServerSentEvent<String>> rest = sse().take("/api/v1/stream/orders-spread", ids.get(k), 23 - k);
			assertThat(data(rest)).containsExactlyInAnyOrderElementsOf(
					IntStream.range(k + 1, 24).mapToObj((i) -> "{\"n\":" + i + "}").toList());
		}
		// The last answer's id is at the end of every partition: what is published next
		// is the first event a stream resumed from it receives.
		assertThat(data(receive("/api/v1/stream/orders-spread", ids.get(23), 1,
				() -> publish("orders-spread?key=k24", "{\"n\":24}"))))
			.containsExactly("{\"n\":24}");
	}

	@Test
	void theModeMayBeAskedForByTheAcceptHeaderAsAxwayStreamsClientsDo() {
		createTopic("{\"id\":\"accepted\",\"payloadType\":\"snapshot\"}");
		String first = publishedId("accepted", "{\"v\":1}");
		publish("accepted", "{\"v\":2}");
		// Resumed after the first version: a patch in snapshot-patch mode (the topic's
		// default), the whole document in snapshot-only mode.
		String resumed = "/api/v1/stream/accepted?lastEventId=" + first;
		assertThat(acceptedEvents(resumed, "text/event-stream", 1)).containsExactly("patch");
		for (String type : List.of("application/vnd.axway.streams+snapshot-only",
				"application/vnd.streamgate+snapshot-only")) {
			assertThat(acceptedEvents(resumed, type, 1)).as(type).containsExactly("snapshot");
		}
		// The mode parameter wins over the header.
		assertThat(acceptedEvents(resumed + "&mode=snapshot-patch", "application/vnd.axway.streams+snapshot-only", 1))
			.containsExactly("patch");
		// A mode the topic does not allow is refused before the stream opens.
		ProblemAssertions.expectProblem(this.client.get()
			.uri("/api/v1/stream/accepted")
			.header("Accept", "application/vnd.axway.streams+event")
			.exchange(), 406, "mode-not-allowed");
		ProblemAssertions.expectProblem(this.client.get()
			.uri("/api/v1/stream/accepted")
			.header("Accept", "application/vnd.streamgate+event")
			.exchange(), 406, "mode-not-allowed");
	}

	private List<String> acceptedEvents(String path, String accept, int count) {
		return WebClient.create("http://localhost:" + this.port)
			.get()
			.uri(path)
			.header("Accept", accept.equals("text/event-stream") ? accept : accept + ", text/event-stream;q=0.5")
			.retrieve()
			.bodyToFlux(new org.springframework.core.ParameterizedTypeReference<ServerSentEvent<String>>() {
			})
			.filter((event) -> event.event() != null)
			.map(ServerSentEvent::event)
			.take(count)
			.collectList()
			.block(TIMEOUT);
	}

	@Test
	void theTopicStatusCountsConnectedStreams() {
		createTopic("{\"id\":\"counted\"}");
		sse().takeAfter("/api/v1/stream/counted", null, 1, () -> {
			this.client.get()
				.uri("/api/v1/topics/counted/status")
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody()
				.jsonPath("$.subscribers.sse")
				.isEqualTo(1);
			publish("counted", "{\"done\":true}");
		});
	}

	@Test
	void deletingTheTopicEndsItsStreamsWithAProblemEventAndForgetsItsMeters() {
		createTopic("{\"id\":\"doomed\"}");
		CompletableFuture<List<ServerSentEvent<String>>> events = sse().stream("/api/v1/stream/doomed", null)
			.collectList()
			.timeout(TIMEOUT)
			.toFuture();
		sleep(1000);
		this.client.delete().uri("/api/v1/topics/doomed").exchange().expectStatus().isNoContent();
		List<ServerSentEvent<String>> received = events.join();
		// Its meters go too: topics created and deleted by the thousand must not grow the
		// registry.
		await().atMost(TIMEOUT)
			.until(() -> !this.client.get()
				.uri("/actuator/prometheus")
				.exchange()
				.expectBody(String.class)
				.returnResult()
				.getResponseBody()
				.contains("topic=\"doomed\""));
		assertThat(received).last().satisfies((event) -> {
			assertThat(event.event()).isEqualTo("problem");
			assertThat(event.data()).contains("https://streamgate.dev/problems/topic-deleted");
		});
	}

	@Test
	void streamsSendHeartbeatCommentsAndTheRetryLine() {
		createTopic("{\"id\":\"quiet\"}");
		List<ServerSentEvent<String>> raw = WebClientRaw
			.events("http://localhost:" + this.port + "/api/v1/stream/quiet", 3);
		assertThat(raw.get(0).retry()).isEqualTo(Duration.ofSeconds(3));
		assertThat(raw.subList(1, 3)).allSatisfy((event) -> assertThat(event.comment()).isEqualTo("heartbeat"));
	}

	@Test
	void streamsRefuseBadRequestsBeforeTheFirstByte() {
		createTopic("{\"id\":\"strict\",\"partitions\":2}");
		expectProblem("/api/v1/stream/no-such-topic", null, 404, "topic-not-found");
		expectProblem("/api/v1/stream/Bad!", null, 400, "invalid-topic-id");
		expectProblem("/api/v1/stream/strict?mode=snapshot-only", null, 406, "mode-not-allowed");
		expectProblem("/api/v1/stream/strict?mode=firehose", null, 406, "mode-not-allowed");
		expectProblem("/api/v1/stream/strict", at("strict", "1.2.3"), 400, "invalid-cursor");
		expectProblem("/api/v1/stream/strict?lastEventId=abc", null, 400, "invalid-cursor");
	}

	@Test
	void theCursorOfATimeResumesAStreamWithWhatWasPublishedSince() {
		createTopic("{\"id\":\"timeline\"}");
		publish("timeline", "{\"n\":0}");
		sleep(50);
		java.time.Instant between = java.time.Instant.now();
		sleep(50);
		publish("timeline", "{\"n\":1}");
		publish("timeline", "{\"n\":2}");
		String cursor = this.client.get()
			.uri("/api/v1/topics/timeline/cursor?at={at}", between.toString())
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(Map.class)
			.returnResult()
			.getResponseBody()
			.get("id")
			.toString();
		List<ServerSentEvent<String>> events = sse().take("/api/v1/stream/timeline?lastEventId=" + cursor, null, 2);
		assertThat(data(events)).containsExactly("{\"n\":1}", "{\"n\":2}");
		ProblemAssertions.expectProblem(this.client.get().uri("/api/v1/topics/timeline/cursor?at=yesterday").exchange(),
				400, "invalid-parameter");
		ProblemAssertions.expectProblem(this.client.get().uri("/api/v1/topics/timeline/cursor").exchange(), 400,
				"invalid-parameter");
		ProblemAssertions.expectProblem(
				this.client.get().uri("/api/v1/topics/nowhere/cursor?at={at}", between.toString()).exchange(), 404,
				"topic-not-found");
	}

	@Test
	void corsLetsAnotherOriginOpenAStream() {
		createTopic("{\"id\":\"shared-origin\"}");
		this.client.options()
			.uri("/api/v1/stream/shared-origin")
			.header("Origin", "https://app.example.com")
			.header("Access-Control-Request-Method", "GET")
			.header("Access-Control-Request-Headers", "last-event-id")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("Access-Control-Allow-Origin", "https://app.example.com");
	}

	@Test
	void aTopicCreatedAgainNeverReusesCursors() {
		// Offsets restart at 0: without the incarnation an old cursor would silently skip
		// the new topic's first events and webhook-ids would repeat the deleted topic's.
		createTopic("{\"id\":\"reinc\"}");
		List<String> before = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			before.add(publishedId("reinc", "{\"old\":" + i + "}"));
		}
		this.client.delete().uri("/api/v1/topics/reinc").exchange().expectStatus().isNoContent();
		createTopic("{\"id\":\"reinc\"}");
		List<String> after = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			after.add(publishedId("reinc", "{\"new\":" + i + "}"));
		}
		assertThat(after).doesNotContainAnyElementsOf(before);
		List<ServerSentEvent<String>> resumed = receive("/api/v1/stream/reinc", before.get(2), 2,
				() -> publish("reinc", "{\"new\":\"live\"}"));
		assertThat(resumed.get(0).event()).isEqualTo("problem");
		assertThat(resumed.get(0).data()).contains("https://streamgate.dev/problems/position-unknown");
		assertThat(resumed.get(1).data()).isEqualTo("{\"new\":\"live\"}");
		// What a publish answers is a cursor: resuming from it gives the events after it.
		assertThat(data(sse().take("/api/v1/stream/reinc", after.get(1), 3))).containsExactly("{\"new\":2}",
				"{\"new\":3}", "{\"new\":4}");
	}

	private String publishedId(String topic, String json) {
		return this.client.post()
			.uri("/api/v1/publish/" + topic)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(json)
			.exchange()
			.expectStatus()
			.isAccepted()
			.returnResult(Map.class)
			.getResponseBody()
			.blockFirst(TIMEOUT)
			.get("id")
			.toString();
	}

	/** A cursor of a topic at the given offsets. */
	private String at(String topic, String offsets) {
		return Cursors.at(this.client.get()
			.uri("/api/v1/topics/" + topic + "/status")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody(), offsets);
	}

	@Test
	void oneStreamCarriesSeveralTopicsAndItsIdResumesEachExactly() {
		createTopic("{\"id\":\"multi-a\"}");
		createTopic("{\"id\":\"multi-b\",\"partitions\":2}");
		createTopic("{\"id\":\"multi-doc\",\"payloadType\":\"snapshot\"}");
		String path = "/api/v1/stream?topic=multi-a&topic=multi-b&topic=multi-doc";
		List<ServerSentEvent<String>> first = receive(path, null, 3, () -> {
			publish("multi-a", "{\"a\":0}");
			publish("multi-b", "{\"b\":0}");
			publish("multi-doc", "{\"v\":1}");
		});
		// Each data names its topic; each id covers every topic with a position.
		assertThat(first).extracting(ServerSentEvent::data)
			.containsExactlyInAnyOrder("{\"topic\":\"multi-a\",\"data\":{\"a\":0}}",
					"{\"topic\":\"multi-b\",\"data\":{\"b\":0}}", "{\"topic\":\"multi-doc\",\"data\":{\"v\":1}}");
		assertThat(first).filteredOn((event) -> event.data().contains("multi-doc"))
			.extracting(ServerSentEvent::event)
			.containsExactly("snapshot");
		String lastId = first.get(2).id();
		assertThat(lastId).contains("multi-a@", "multi-b@", "multi-doc@");

		publishBatch("multi-a", List.of("{\"a\":1}", "{\"a\":2}"));
		publishBatch("multi-b", List.of("{\"b\":1}", "{\"b\":2}", "{\"b\":3}"));
		publish("multi-doc", "{\"v\":2}");
		// The header and the query parameter carry the same cursor.
		for (String resumed : List.of(path + "&lastEventId=" + lastId, path)) {
			List<ServerSentEvent<String>> rest = receive(resumed, resumed.equals(path) ? lastId : null, 6, () -> {
			});
			assertThat(rest).extracting(ServerSentEvent::data)
				.containsExactlyInAnyOrder("{\"topic\":\"multi-a\",\"data\":{\"a\":1}}",
						"{\"topic\":\"multi-a\",\"data\":{\"a\":2}}", "{\"topic\":\"multi-b\",\"data\":{\"b\":1}}",
						"{\"topic\":\"multi-b\",\"data\":{\"b\":2}}", "{\"topic\":\"multi-b\",\"data\":{\"b\":3}}",
						"{\"topic\":\"multi-doc\",\"data\":[{\"op\":\"replace\",\"path\":\"/v\",\"value\":2}]}");
			// Order is kept within each topic.
			assertThat(rest).extracting(ServerSentEvent::data)
				.filteredOn((data) -> data.contains("multi-b"))
				.containsExactly("{\"topic\":\"multi-b\",\"data\":{\"b\":1}}",
						"{\"topic\":\"multi-b\",\"data\":{\"b\":2}}", "{\"topic\":\"multi-b\",\"data\":{\"b\":3}}");
		}
	}

	@Test
	void aTopicThatSentNothingYetResumesFromWhereTheStreamJoinedIt() {
		createTopic("{\"id\":\"joined-busy\"}");
		createTopic("{\"id\":\"joined-quiet\"}");
		publish("joined-quiet", "{\"before\":true}");
		String path = "/api/v1/stream?topic=joined-busy&topic=joined-quiet";
		List<ServerSentEvent<String>> first = receive(path, null, 2,
				() -> publishBatch("joined-busy", List.of("{\"n\":0}", "{\"n\":1}")));
		String lastId = first.get(1).id();
		// The quiet topic is in the id at the position the stream joined it.
		assertThat(lastId).contains("joined-quiet@");
		publishBatch("joined-quiet", List.of("{\"q\":0}", "{\"q\":1}"));
		List<ServerSentEvent<String>> rest = receive(path, lastId, 3, () -> publish("joined-busy", "{\"n\":2}"));
		assertThat(rest).extracting(ServerSentEvent::data)
			.containsExactlyInAnyOrder("{\"topic\":\"joined-quiet\",\"data\":{\"q\":0}}",
					"{\"topic\":\"joined-quiet\",\"data\":{\"q\":1}}",
					"{\"topic\":\"joined-busy\",\"data\":{\"n\":2}}");
	}

	@Test
	void aStreamOfSeveralTopicsEndsWhenOneIsDeleted() {
		createTopic("{\"id\":\"pair-kept\"}");
		createTopic("{\"id\":\"pair-doomed\"}");
		CompletableFuture<List<ServerSentEvent<String>>> events = sse()
			.stream("/api/v1/stream?topic=pair-kept&topic=pair-doomed", null)
			.collectList()
			.timeout(TIMEOUT)
			.toFuture();
		sleep(1000);
		this.client.delete().uri("/api/v1/topics/pair-doomed").exchange().expectStatus().isNoContent();
		assertThat(events.join()).last().satisfies((event) -> {
			assertThat(event.event()).isEqualTo("problem");
			assertThat(event.data()).startsWith("{\"topic\":\"pair-doomed\",\"data\":")
				.contains("https://streamgate.dev/problems/topic-deleted");
		});
	}

	@Test
	void aStreamOfSeveralTopicsSendsOneHeartbeatAPeriodNotOnePerTopic() {
		for (String id : List.of("beat-a", "beat-b", "beat-c")) {
			createTopic("{\"id\":\"" + id + "\"}");
		}
		// streamgate.sse.heartbeat=1s: four comments span about three periods; one per
		// topic would bring them three at a time.
		List<Long> at = new ArrayList<>();
		sse().all("/api/v1/stream?topic=beat-a&topic=beat-b&topic=beat-c", null)
			.filter((event) -> "heartbeat".equals(event.comment()))
			.take(4)
			.doOnNext((event) -> at.add(System.nanoTime()))
			.blockLast(TIMEOUT);
		assertThat(Duration.ofNanos(at.get(3) - at.get(0))).isGreaterThan(Duration.ofMillis(1500));
	}

	@Test
	void streamsOfSeveralTopicsRefuseBadRequestsBeforeTheFirstByte() {
		createTopic("{\"id\":\"multi-strict\"}");
		createTopic("{\"id\":\"multi-doc-strict\",\"payloadType\":\"snapshot\"}");
		expectProblem("/api/v1/stream", null, 400, "invalid-parameter");
		expectProblem("/api/v1/stream?topic=", null, 400, "invalid-parameter");
		expectProblem("/api/v1/stream?topic=multi-strict&topic=no-such-topic", null, 404, "topic-not-found");
		expectProblem("/api/v1/stream?topic=multi-strict&topic=multi-doc-strict&mode=event", null, 406,
				"mode-not-allowed");
		expectProblem("/api/v1/stream?topic=multi-strict", "multi-strict", 400, "invalid-cursor");
		expectProblem("/api/v1/stream?topic=multi-strict", "multi-strict@abc", 400, "invalid-cursor");
		expectProblem("/api/v1/stream?topic=multi-strict&lastEventId=a@1,a@2", null, 400, "invalid-cursor");
		String tooMany = IntStream.range(0, 101)
			.mapToObj((i) -> "topic=t" + i)
			.collect(Collectors.joining("&", "/api/v1/stream?", ""));
		expectProblem(tooMany, null, 400, "invalid-parameter");
	}

	private void expectProblem(String path, String lastEventId, int status, String type) {
		WebTestClient.RequestHeadersSpec<?> request = this.client.get().uri(path).accept(MediaType.TEXT_EVENT_STREAM);
		if (lastEventId != null) {
			request.header("Last-Event-ID", lastEventId);
		}
		request.exchange()
			.expectStatus()
			.isEqualTo(status)
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody()
			.jsonPath("$.type")
			.isEqualTo("https://streamgate.dev/problems/" + type);
	}

	private static JsonStructure doc(String json) {
		return (JsonStructure) JsonPatches.read(json.getBytes(StandardCharsets.UTF_8));
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Every SSE event, comments and retry lines included. */
	static final class WebClientRaw {

		static List<ServerSentEvent<String>> events(String url, int count) {
			return org.springframework.web.reactive.function.client.WebClient.create(url)
				.get()
				.accept(MediaType.TEXT_EVENT_STREAM)
				.retrieve()
				.bodyToFlux(new org.springframework.core.ParameterizedTypeReference<ServerSentEvent<String>>() {
				})
				.take(count)
				.collectList()
				.block(TIMEOUT);
		}

	}

}
