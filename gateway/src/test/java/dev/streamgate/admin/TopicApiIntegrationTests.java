package dev.streamgate.admin;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import dev.streamgate.core.event.EventStorageProperties;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.ProblemAssertions;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient(timeout = "30s")
class TopicApiIntegrationTests {

	private static final MediaType MERGE_PATCH = MediaType.parseMediaType("application/merge-patch+json");

	private static final String PROBLEMS = "https://streamgate.dev/problems/";

	@DynamicPropertySource
	static void kafka(DynamicPropertyRegistry registry) {
		GatewayKafka.register(registry);
	}

	@Autowired
	private WebTestClient client;

	@Value("${streamgate.kafka.topic-prefix}")
	private String prefix;

	private static int counter;

	private static synchronized String newId() {
		return "topic-" + (++counter);
	}

	private WebTestClient.ResponseSpec post(String json) {
		return this.client.post()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(json)
			.exchange();
	}

	private WebTestClient.ResponseSpec patch(String id, String json, String ifMatch) {
		WebTestClient.RequestBodySpec request = this.client.patch()
			.uri("/api/v1/topics/" + id)
			.contentType(MERGE_PATCH);
		if (ifMatch != null) {
			request.header(HttpHeaders.IF_MATCH, ifMatch);
		}
		return request.bodyValue(json).exchange();
	}

	private String create(String json) {
		return post(json).expectStatus().isCreated().returnResult(String.class).getResponseHeaders().getETag();
	}

	private Admin kafkaAdmin() {
		return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()));
	}

	@Test
	void errorsSayWhatIsWrongInTheClientsTermsAndWhere() {
		post("{\"id\":\"typed\",\"partitions\":\"three\"}").expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.errors[0].pointer")
			.isEqualTo("/partitions")
			.jsonPath("$.detail")
			.value((String detail) -> assertThat(detail).contains("must be a whole number")
				.doesNotContain("java.")
				.doesNotContain("Coercion"));
		String deep = "[".repeat(3000) + "]".repeat(3000);
		post("{\"id\":\"nested\"}").expectStatus().isCreated();
		for (String path : List.of("/api/v1/topics", "/api/v1/publish/nested")) {
			this.client.post()
				.uri(path)
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue(deep)
				.exchange()
				.expectStatus()
				.isBadRequest()
				.expectBody()
				.jsonPath("$.detail")
				.value((String detail) -> assertThat(detail).contains("nesting depth")
					.doesNotContain("StreamReadConstraints")
					.doesNotContain("`"));
		}
		this.client.get()
			.uri("/api/v1/nothing")
			.exchange()
			.expectStatus()
			.isNotFound()
			.expectBody()
			.jsonPath("$.detail")
			.value((String detail) -> assertThat(detail).startsWith("Nothing is served at /api/v1/nothing")
				.doesNotContain("static resource"));
	}

	@Test
	void createReturnsTheStoredTopicWithLocationAndEtagAndCreatesItsEventsTopic() throws Exception {
		String id = newId();
		post("""
				{"id":"%s","name":"Stock prices","payloadType":"snapshot",
				 "publisher":{"type":"http-poller","url":"https://api.example.com/prices","pollingPeriod":"PT1S",
				   "headers":{"Authorization":"Bearer x"},"payloadPointer":"/data","timeout":"PT10S",
				   "retry":{"onStatus":[500,502,503,504],"maxAttempts":3,"initialBackoff":"PT1S","maxBackoff":"PT10S"}},
				 "subscriptionModes":["snapshot-patch","snapshot-only"],"defaultSubscriptionMode":"snapshot-patch",
				 "partitions":1,"retention":"P3D","public":true,"storage":"dedicated"}""".formatted(id)).expectStatus()
			.isCreated()
			.expectHeader()
			.location("/api/v1/topics/" + id)
			.expectHeader()
			.valueMatches(HttpHeaders.ETAG, "\"\\d+\"")
			.expectBody()
			.jsonPath("$.id")
			.isEqualTo(id)
			.jsonPath("$.publisher.payloadPointer")
			.isEqualTo("/data")
			.jsonPath("$.retention")
			.isEqualTo("P3D")
			.jsonPath("$.storage")
			.isEqualTo("dedicated")
			.jsonPath("$.public")
			.isEqualTo(true)
			.jsonPath("$.createdAt")
			.isNotEmpty();
		try (Admin admin = kafkaAdmin()) {
			String events = this.prefix + "events." + id;
			assertThat(admin.listTopics().names().get()).contains(events);
			ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, events);
			assertThat(admin.describeConfigs(List.of(resource)).all().get().get(resource).get("retention.ms").value())
				.isEqualTo(Long.toString(3 * 24 * 3600 * 1000L));
		}
	}

	@Test
	void createFillsInDefaultsAndGeneratesAnIdWhenAbsent() {
		post("{}").expectStatus()
			.isCreated()
			.expectBody()
			.jsonPath("$.id")
			.value((String id) -> assertThat(id).matches("[a-z0-9][a-z0-9._-]{0,62}"))
			.jsonPath("$.payloadType")
			.isEqualTo("event")
			.jsonPath("$.publisher.type")
			.isEqualTo("http-post")
			.jsonPath("$.subscriptionModes")
			.isEqualTo(List.of("event"))
			.jsonPath("$.defaultSubscriptionMode")
			.isEqualTo("event")
			.jsonPath("$.partitions")
			.isEqualTo(1)
			.jsonPath("$.retention")
			.isEqualTo("P7D")
			.jsonPath("$.storage")
			.isEqualTo("shared")
			.jsonPath("$.public")
			.isEqualTo(false);
	}

	@Test
	void topicsAreSharedUnlessTheyNeedPartitionsOrRetentionOfTheirOwn() throws Exception {
		String shared = newId();
		String partitioned = newId();
		String kept = newId();
		create("{\"id\":\"" + shared + "\"}");
		create("{\"id\":\"" + partitioned + "\",\"partitions\":2}");
		create("{\"id\":\"" + kept + "\",\"retention\":\"P30D\"}");
		for (String[] expected : new String[][] { { shared, "shared" }, { partitioned, "dedicated" },
				{ kept, "dedicated" } }) {
			this.client.get()
				.uri("/api/v1/topics/" + expected[0])
				.exchange()
				.expectBody()
				.jsonPath("$.storage")
				.isEqualTo(expected[1]);
		}
		try (Admin admin = kafkaAdmin()) {
			Set<String> names = admin.listTopics().names().get();
			assertThat(names).contains(this.prefix + "events", this.prefix + "events." + partitioned,
					this.prefix + "events." + kept);
			assertThat(names).doesNotContain(this.prefix + "events." + shared);
		}
		// The status of a shared topic: no retained count (it would mean reading the
		// shared
		// log), the time of its newest event.
		this.client.post()
			.uri("/api/v1/publish/" + shared)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"n\":1}")
			.exchange()
			.expectStatus()
			.isAccepted();
		String status = this.client.get()
			.uri("/api/v1/topics/" + shared + "/status")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		assertThat(status).contains("\"retained\":null", "\"partitions\":1").doesNotContain("\"lastEventTime\":null");
		ProblemAssertions.expectProblem(patch(shared, "{\"storage\":\"dedicated\"}", null), 400, "invalid-topic");
		ProblemAssertions.expectProblem(patch(shared, "{\"partitions\":2}", null), 400, "invalid-topic");
	}

	@Test
	void aSharedTopicLivesInThePartitionNginxRoutesItsIdToAndKeepsIt() throws Exception {
		// NGINX's "hash $topic" with n servers sends a topic to server
		// ((crc32(id) >> 16) & 0x7fff) mod n; the topic's partition is that hash modulo
		// the shared partitions (12 here), so with 4 servers server k gets partitions
		// p mod 4 = k.
		// The partitions below were computed with another CRC-32 (Python's zlib).
		Map<String, Integer> expected = Map.of("prices", 3, "orders", 7, "alerts", 10);
		for (Map.Entry<String, Integer> topic : expected.entrySet()) {
			assertThat(new EventStorageProperties(12, Duration.ofDays(7)).sharedPartitionOf(topic.getKey()))
				.as(topic.getKey())
				.isEqualTo(topic.getValue());
		}
		String id = newId();
		create("{\"id\":\"" + id + "\"}");
		int partition = this.client.get()
			.uri("/api/v1/topics/" + id)
			.exchange()
			.expectBody(Map.class)
			.returnResult()
			.getResponseBody()
			.get("sharedPartition") instanceof Integer number ? number : -1;
		assertThat(partition).isEqualTo(new EventStorageProperties(12, Duration.ofDays(7)).sharedPartitionOf(id));
		this.client.post()
			.uri("/api/v1/publish/" + id)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"n\":1}")
			.exchange()
			.expectStatus()
			.isAccepted();
		try (Admin admin = kafkaAdmin()) {
			TopicPartition events = new TopicPartition(this.prefix + "events", partition);
			assertThat(admin.listOffsets(Map.of(events, OffsetSpec.latest())).all().get().get(events).offset())
				.isPositive();
		}
		// Read-only, and kept by a change of the topic.
		ProblemAssertions.expectProblem(patch(id, "{\"sharedPartition\":1}", null), 400, "invalid-topic");
		patch(id, "{\"name\":\"renamed\"}", null).expectStatus().isOk();
		this.client.get()
			.uri("/api/v1/topics/" + id)
			.exchange()
			.expectBody()
			.jsonPath("$.sharedPartition")
			.isEqualTo(partition);
		String dedicated = newId();
		create("{\"id\":\"" + dedicated + "\",\"storage\":\"dedicated\"}");
		this.client.get()
			.uri("/api/v1/topics/" + dedicated)
			.exchange()
			.expectBody()
			.jsonPath("$.sharedPartition")
			.doesNotExist();
	}

	@Test
	void createWithADuplicateIdIsAConflict() {
		String id = newId();
		create("{\"id\":\"" + id + "\"}");
		ProblemAssertions.expectProblem(post("{\"id\":\"" + id + "\"}"), 409, "topic-exists");
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|',
			textBlock = """
							unknown field              | {"id":"x1","colour":"red"}
							bad id                     | {"id":"Not_OK!"}
							bad retention              | {"retention":"seven days"}
							bad timeout                | {"payloadType":"snapshot","publisher":{"type":"http-poller","url":"https://a.example","timeout":"10"}}
							polling too fast           | {"payloadType":"snapshot","publisher":{"type":"http-poller","url":"https://a.example","pollingPeriod":"PT0.1S"}}
							polling too slow           | {"payloadType":"snapshot","publisher":{"type":"http-poller","url":"https://a.example","pollingPeriod":"PT2H"}}
							poller without url         | {"publisher":{"type":"http-poller"}}
							http-post with fields      | {"publisher":{"type":"http-post","url":"https://a.example"}}
							event mode on snapshot     | {"payloadType":"snapshot","subscriptionModes":["event"]}
							snapshot mode on event     | {"payloadType":"event","subscriptionModes":["snapshot-only"]}
							default mode not allowed   | {"payloadType":"snapshot","subscriptionModes":["snapshot-only"],"defaultSubscriptionMode":"snapshot-patch"}
							unknown mode               | {"subscriptionModes":["firehose"]}
							partitions on snapshot     | {"payloadType":"snapshot","partitions":3}
							shared with partitions     | {"partitions":2,"storage":"shared"}
							shared kept too long       | {"retention":"P30D","storage":"shared"}
							unknown storage            | {"storage":"cloud"}
							zero partitions            | {"partitions":0}
							read-only field            | {"createdAt":"2026-01-01T00:00:00Z"}
							not an object              | ["a"]
					null mode                  | {"subscriptionModes":[null]}
					null retry status          | {"payloadType":"snapshot","publisher":{"type":"http-poller","url":"https://a.example","retry":{"onStatus":[null]}}}
					null header value          | {"payloadType":"snapshot","publisher":{"type":"http-poller","url":"https://a.example","headers":{"X-A":null}}}
							""")
	void createAnswersEachInvalidTopicWithAProblem(String reason, String json) {
		post(json).expectStatus()
			.isBadRequest()
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody()
			.jsonPath("$.type")
			.isEqualTo(PROBLEMS + "invalid-topic")
			.jsonPath("$.errors[0].pointer")
			.exists()
			.jsonPath("$.errors[0].detail")
			.isNotEmpty();
	}

	@ParameterizedTest
	@CsvSource({ "http://127.0.0.1:8080/data", "http://localhost/x", "http://169.254.169.254/latest/meta-data",
			"http://10.0.0.7/", "http://[::1]/x", "http://[::ffff:127.0.0.1]/x" })
	void pollersPointedInsideTheNetworkAreRefused(String url) {
		post("{\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\",\"url\":\"" + url + "\"}}")
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.type")
			.isEqualTo(PROBLEMS + "invalid-topic")
			.jsonPath("$.errors[0].pointer")
			.isEqualTo("/publisher/url")
			.jsonPath("$.errors[0].detail")
			.value((String detail) -> assertThat(detail).contains("streamgate.egress.allowed-cidrs"));
	}

	@Test
	void patchingAPollerToAnInternalUrlIsRefused() {
		String id = newId();
		// A public-looking name that never resolves (RFC 6761 .invalid): the poller that
		// starts for the topic must not send traffic off this machine.
		create("{\"id\":\"" + id
				+ "\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\",\"url\":\"https://source.invalid/x\"}}");
		ProblemAssertions.expectProblem(patch(id, "{\"publisher\":{\"url\":\"http://127.0.0.1/x\"}}", null), 400,
				"invalid-topic");
		this.client.delete().uri("/api/v1/topics/" + id).exchange().expectStatus().isNoContent();
	}

	@Test
	void createAnswersMalformedMissingAndMistypedBodies() {
		ProblemAssertions.expectProblem(post("{\"id\":"), 400, "malformed-json");
		ProblemAssertions.expectProblem(post("{\"id\":\"a\",\"id\":\"b\"}"), 400, "malformed-json");
		ProblemAssertions.expectProblem(
				this.client.post().uri("/api/v1/topics").contentType(MediaType.APPLICATION_JSON).exchange(), 400,
				"missing-body");
		ProblemAssertions.expectProblem(this.client.post()
			.uri("/api/v1/topics")
			.contentType(MediaType.TEXT_PLAIN)
			.bodyValue("{\"id\":\"plain\"}")
			.exchange(), 415, "unsupported-media-type");
		ProblemAssertions.expectProblem(this.client.post().uri("/api/v1/topics").bodyValue(new byte[] { 1 }).exchange(),
				415, "unsupported-media-type");
	}

	@Test
	void createRefusesBodiesOverTheLimit() {
		String huge = "{\"name\":\"" + "x".repeat(400 * 1024) + "\"}";
		ProblemAssertions.expectProblem(post(huge), 413, "payload-too-large");
	}

	@Test
	void listPagesThroughTopicsInIdOrder() {
		for (String id : List.of("list-c", "list-a", "list-b")) {
			create("{\"id\":\"" + id + "\"}");
		}
		TopicController.TopicPageDocument all = this.client.get()
			.uri("/api/v1/topics?page=0&size=100")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(TopicController.TopicPageDocument.class)
			.returnResult()
			.getResponseBody();
		List<String> ids = all.items().stream().map((item) -> item.get("id").asString()).toList();
		assertThat(ids).isSorted().contains("list-a", "list-b", "list-c");
		assertThat(all.total()).isEqualTo(ids.size());
		int indexOfB = ids.indexOf("list-b");
		this.client.get()
			.uri("/api/v1/topics?page=" + indexOfB + "&size=1")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.items.length()")
			.isEqualTo(1)
			.jsonPath("$.items[0].id")
			.isEqualTo("list-b")
			.jsonPath("$.page")
			.isEqualTo(indexOfB)
			.jsonPath("$.size")
			.isEqualTo(1)
			.jsonPath("$.total")
			.isEqualTo(all.total());
		this.client.get()
			.uri("/api/v1/topics?page=100000&size=20")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.items.length()")
			.isEqualTo(0);
	}

	@ParameterizedTest
	@CsvSource({ "page=-1", "size=0", "size=101", "page=abc", "size=1.5" })
	void listRefusesBadPaging(String query) {
		ProblemAssertions.expectProblem(this.client.get().uri("/api/v1/topics?" + query).exchange(), 400,
				"invalid-parameter");
	}

	@Test
	void aParameterNameTheFirewallRefusesIsA400NotA500() {
		// Found by schemathesis: an unassigned code point in a query parameter name.
		URI uri = URI.create(this.client.get()
			.uri("/")
			.exchange()
			.returnResult(Void.class)
			.getUrl()
			.resolve("/api/v1/topics?%F1%92%A0%9C%C3%94=1&limit=")
			.toString());
		ProblemAssertions.expectProblem(this.client.get().uri(uri).exchange(), 400, "bad-request");
	}

	@Test
	void getReturnsTheTopicWithItsEtag() {
		String id = newId();
		String etag = create("{\"id\":\"" + id + "\"}");
		this.client.get()
			.uri("/api/v1/topics/" + id)
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals(HttpHeaders.ETAG, etag)
			.expectBody()
			.jsonPath("$.id")
			.isEqualTo(id);
	}

	@Test
	void getAnswersUnknownAndInvalidIds() {
		ProblemAssertions.expectProblem(this.client.get().uri("/api/v1/topics/no-such-topic").exchange(), 404,
				"topic-not-found");
		ProblemAssertions.expectProblem(this.client.get().uri("/api/v1/topics/Bad!Id").exchange(), 400,
				"invalid-topic-id");
		ProblemAssertions.expectProblem(this.client.get().uri("/api/v1/topics/" + "a".repeat(64)).exchange(), 400,
				"invalid-topic-id");
	}

	@Test
	void patchMergesHonoursIfMatchAndChangesTheEtag() throws Exception {
		String id = newId();
		String etag = create("{\"id\":\"" + id + "\",\"name\":\"before\",\"partitions\":2}");
		ProblemAssertions.expectProblem(patch(id, "{\"name\":\"stale\"}", "\"999999\""), 412, "precondition-failed");
		String newEtag = patch(id, "{\"name\":\"after\",\"retention\":\"P1D\",\"partitions\":3,\"public\":true}", etag)
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.name")
			.isEqualTo("after")
			.jsonPath("$.retention")
			.isEqualTo("P1D")
			.jsonPath("$.partitions")
			.isEqualTo(3)
			.jsonPath("$.payloadType")
			.isEqualTo("event")
			.returnResult()
			.getResponseHeaders()
			.getETag();
		assertThat(newEtag).isNotEqualTo(etag);
		ProblemAssertions.expectProblem(patch(id, "{\"name\":\"late\"}", etag), 412, "precondition-failed");
		// null removes a member: the default comes back
		patch(id, "{\"name\":null}", newEtag).expectStatus().isOk().expectBody().jsonPath("$.name").isEqualTo(id);
		try (Admin admin = kafkaAdmin()) {
			String events = this.prefix + "events." + id;
			assertThat(admin.describeTopics(Set.of(events)).allTopicNames().get().get(events).partitions()).hasSize(3);
			ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, events);
			await().untilAsserted(() -> assertThat(
					admin.describeConfigs(List.of(resource)).all().get().get(resource).get("retention.ms").value())
				.isEqualTo(Long.toString(24 * 3600 * 1000L)));
		}
	}

	@Test
	void patchAnswersEveryRefusalWithAProblem() {
		String id = newId();
		create("{\"id\":\"" + id + "\",\"partitions\":2}");
		ProblemAssertions.expectProblem(patch(id, "{\"payloadType\":\"snapshot\"}", null), 409,
				"payload-type-immutable");
		ProblemAssertions.expectProblem(patch(id, "{\"partitions\":1}", null), 409, "conflict");
		ProblemAssertions.expectProblem(patch(id, "{\"id\":\"other\"}", null), 400, "invalid-topic");
		ProblemAssertions.expectProblem(patch(id, "{\"colour\":\"red\"}", null), 400, "invalid-topic");
		ProblemAssertions.expectProblem(patch(id, "{\"retention\":\"P0D\"}", null), 400, "invalid-topic");
		ProblemAssertions.expectProblem(patch(id, "{\"createdAt\":\"2026-01-01T00:00:00Z\"}", null), 400,
				"invalid-topic");
		ProblemAssertions.expectProblem(patch(id, "[1]", null), 400, "invalid-topic");
		ProblemAssertions.expectProblem(patch(id, "{", null), 400, "malformed-json");
		ProblemAssertions.expectProblem(patch("missing-topic", "{\"name\":\"x\"}", null), 404, "topic-not-found");
		ProblemAssertions.expectProblem(this.client.patch()
			.uri("/api/v1/topics/" + id)
			.contentType(MediaType.TEXT_PLAIN)
			.bodyValue("{}")
			.exchange(), 415, "unsupported-media-type");
		ProblemAssertions.expectProblem(
				this.client.patch().uri("/api/v1/topics/" + id).contentType(MERGE_PATCH).exchange(), 400,
				"missing-body");
	}

	@Test
	void patchAcceptsPlainJsonToo() {
		String id = newId();
		create("{\"id\":\"" + id + "\"}");
		this.client.patch()
			.uri("/api/v1/topics/" + id)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"name\":\"plain\"}")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.name")
			.isEqualTo("plain");
	}

	@Test
	void deleteRemovesTheTopicAndItsEventsTopicAndTheIdCanBeReused() throws Exception {
		String id = newId();
		create("{\"id\":\"" + id + "\",\"storage\":\"dedicated\"}");
		ProblemAssertions.expectProblem(
				this.client.delete().uri("/api/v1/topics/" + id).header(HttpHeaders.IF_MATCH, "\"424242\"").exchange(),
				412, "precondition-failed");
		this.client.delete().uri("/api/v1/topics/" + id).exchange().expectStatus().isNoContent();
		ProblemAssertions.expectProblem(this.client.get().uri("/api/v1/topics/" + id).exchange(), 404,
				"topic-not-found");
		ProblemAssertions.expectProblem(this.client.delete().uri("/api/v1/topics/" + id).exchange(), 404,
				"topic-not-found");
		try (Admin admin = kafkaAdmin()) {
			await().untilAsserted(
					() -> assertThat(admin.listTopics().names().get()).doesNotContain(this.prefix + "events." + id));
		}
		create("{\"id\":\"" + id + "\",\"payloadType\":\"snapshot\"}");
	}

	@Test
	void statusReportsTheEventsOfATopic() {
		String id = newId();
		create("{\"id\":\"" + id + "\",\"partitions\":2}");
		this.client.get()
			.uri("/api/v1/topics/" + id + "/status")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.id")
			.isEqualTo(id)
			.jsonPath("$.events.partitions")
			.isEqualTo(2)
			.jsonPath("$.events.position")
			.value((String position) -> assertThat(position).matches("[0-9a-z]+:-1\\.-1"))
			.jsonPath("$.events.retained")
			.isEqualTo(0);
		ProblemAssertions.expectProblem(this.client.get().uri("/api/v1/topics/nope/status").exchange(), 404,
				"topic-not-found");
	}

	@Test
	void unknownPathsAndMethodsAreProblemsToo() {
		ProblemAssertions.expectProblem(this.client.get().uri("/api/v1/nothing-here").exchange(), 404, "not-found");
		ProblemAssertions.expectProblem(this.client.put()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{}")
			.exchange(), 405, "method-not-allowed");
	}

	@Test
	void openApiDocumentDescribesEveryEndpointWithItsErrorAnswers() {
		Map<String, Map<String, List<String>>> expected = Map.of("/api/v1/topics",
				Map.of("post", List.of("201", "400", "409", "413", "415", "503"), "get", List.of("200", "400", "503")),
				"/api/v1/topics/{topicId}",
				Map.of("get", List.of("200", "400", "404", "503"), "patch",
						List.of("200", "400", "404", "409", "412", "413", "415", "503"), "delete",
						List.of("204", "400", "404", "412", "503")),
				"/api/v1/topics/{topicId}/status", Map.of("get", List.of("200", "400", "404", "503")),
				"/api/v1/publish/{topicId}",
				Map.of("post", List.of("202", "400", "404", "409", "413", "415", "422", "503")),
				"/api/v1/stream/{topicId}", Map.of("get", List.of("200", "400", "404", "406", "503")));
		WebTestClient.BodyContentSpec doc = this.client.get()
			.uri("/v3/api-docs")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.components.schemas.Problem.properties.type")
			.exists()
			.jsonPath("$.components.schemas.Topic.properties.payloadType")
			.exists();
		doc.jsonPath("$.components.securitySchemes.bearer.scheme").isEqualTo("bearer");
		// Publish answers as they are: a real cursor, and what changed means.
		doc.jsonPath("$.components.schemas.PublishResponse.properties.id.example")
			.value((String example) -> assertThat(example).matches("[0-9a-z]+:\\d+"));
		doc.jsonPath("$.components.schemas.PublishResponse.properties.changed.description").isNotEmpty();
		// One name per path parameter everywhere.
		doc.jsonPath("$.paths")
			.value((Map<String, Object> paths) -> assertThat(paths.keySet())
				.noneMatch((path) -> path.contains("{id}")));
		// Pagination and client credentials of pollers; client credentials and Kafka
		// targets of webhooks; secrets marked write-only.
		doc.jsonPath("$.components.schemas.Pagination.properties.type.enum")
			.isEqualTo(List.of("link-header", "json-pointer"));
		doc.jsonPath("$.components.schemas.HttpPollerPublisher..oauth2").exists();
		doc.jsonPath("$.components.schemas.KafkaPublisher.properties.type.enum").isEqualTo(List.of("kafka"));
		doc.jsonPath("$.components.schemas.Topic.properties.publisher.oneOf.length()").isEqualTo(3);
		doc.jsonPath("$.components.schemas.ClientCredentials.properties.clientSecret.writeOnly").isEqualTo(true);
		doc.jsonPath("$.components.schemas.WebhookRequest.properties.kafka").exists();
		doc.jsonPath("$.components.schemas.Security.properties.password.writeOnly").isEqualTo(true);
		// Kafka publishers: the type, the source and where a new mirror starts.
		doc.jsonPath("$.components.schemas.Publisher.properties.type.enum")
			.isEqualTo(List.of("http-poller", "http-post", "kafka"));
		doc.jsonPath("$.components.schemas.KafkaPublisher.allOf[1].properties.bootstrapServers").exists();
		doc.jsonPath("$.components.schemas.KafkaPublisher.allOf[1].properties.security.$ref")
			.isEqualTo("#/components/schemas/Security");
		doc.jsonPath("$.components.schemas.KafkaPublisher.allOf[1].properties.startFrom.enum")
			.isEqualTo(List.of("latest", "earliest"));
		expected.forEach((path, operations) -> operations.forEach((method, documented) -> {
			List<String> statuses = new java.util.ArrayList<>(documented);
			// Every API operation can be refused for its token.
			statuses.addAll(List.of("401", "403"));
			for (String status : statuses) {
				doc.jsonPath("$.paths['%s'].%s.responses['%s']".formatted(path, method, status)).exists();
				if (status.startsWith("4") || status.startsWith("5")) {
					doc.jsonPath("$.paths['%s'].%s.responses['%s'].content['application/problem+json']".formatted(path,
							method, status))
						.exists();
				}
			}
		}));
	}

	@Test
	void operationsEndpointsAnswer() {
		this.client.get().uri("/actuator/health/liveness").exchange().expectStatus().isOk();
		this.client.get()
			.uri("/actuator/health/readiness")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.components.kafka.status")
			.isEqualTo("UP")
			.jsonPath("$.components.topicRegistry.status")
			.isEqualTo("UP");
		this.client.get()
			.uri("/actuator/prometheus")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.value((body) -> assertThat(body).contains("jvm_memory_used_bytes"));
		this.client.get().uri("/swagger-ui/index.html").exchange().expectStatus().isOk();
	}

}
