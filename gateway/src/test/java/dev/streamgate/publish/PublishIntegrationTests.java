package dev.streamgate.publish;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.netty.channel.EventLoop;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

import dev.streamgate.core.web.Connections;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.ProblemAssertions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "streamgate.ingest.max-payload=64KB")
@AutoConfigureWebTestClient
class PublishIntegrationTests {

	private static final MediaType NDJSON = MediaType.parseMediaType("application/x-ndjson");

	@DynamicPropertySource
	static void kafka(DynamicPropertyRegistry registry) {
		GatewayKafka.register(registry);
	}

	@Autowired
	private WebTestClient client;

	@Autowired
	private PrometheusConfig prometheusConfig;

	@BeforeEach
	void topics() {
		for (String json : new String[] { "{\"id\":\"orders\",\"partitions\":2}",
				"{\"id\":\"prices\",\"payloadType\":\"snapshot\"}",
				"{\"id\":\"polled\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\",\"url\":\"https://api.example.com/x\"}}" }) {
			this.client.post().uri("/api/v1/topics").contentType(MediaType.APPLICATION_JSON).bodyValue(json).exchange();
		}
	}

	private WebTestClient.ResponseSpec publish(String topic, MediaType type, String body) {
		WebTestClient.RequestBodySpec request = this.client.post().uri("/api/v1/publish/" + topic);
		if (type != null) {
			request.contentType(type);
		}
		return (body != null) ? request.bodyValue(body).exchange() : request.exchange();
	}

	@Test
	void aPublicationIsAcceptedWithItsPosition() {
		publish("orders", MediaType.APPLICATION_JSON, "{\"order\":1}").expectStatus()
			.isAccepted()
			.expectHeader()
			.contentType(MediaType.APPLICATION_JSON)
			.expectHeader()
			.value("Content-Length", (length) -> assertThat(Integer.parseInt(length)).isPositive())
			.expectBody()
			.jsonPath("$.id")
			.value((String id) -> assertThat(id).matches("[0-9a-z]+:-?\\d+\\.-?\\d+"))
			.jsonPath("$.changed")
			.isEqualTo(true)
			// Batches only: not even as null.
			.jsonPath("$")
			.value((java.util.Map<String, Object> answer) -> assertThat(answer).doesNotContainKey("ids"));
	}

	@Test
	void aBatchIsAcceptedWholeWithEachPosition() {
		publish("orders", NDJSON, "{\"n\":1}\n\n{\"n\":2}\r\n[3]\n\"four\"\n").expectStatus()
			.isAccepted()
			.expectBody()
			.jsonPath("$.ids.length()")
			.isEqualTo(4);
	}

	@Test
	void everyPublishErrorIsAProblem() {
		ProblemAssertions.expectProblem(publish("no-such-topic", MediaType.APPLICATION_JSON, "{}"), 404,
				"topic-not-found");
		ProblemAssertions.expectProblem(publish("Not_A_Topic!", MediaType.APPLICATION_JSON, "{}"), 400,
				"invalid-topic-id");
		ProblemAssertions.expectProblem(publish("polled", MediaType.APPLICATION_JSON, "{}"), 409, "publisher-mismatch");
		ProblemAssertions.expectProblem(publish("orders", MediaType.APPLICATION_JSON, "{\"a\":"), 400,
				"malformed-json");
		ProblemAssertions.expectProblem(publish("orders", MediaType.APPLICATION_JSON, "{\"a\":1,\"a\":2}"), 400,
				"malformed-json");
		ProblemAssertions.expectProblem(publish("orders", MediaType.APPLICATION_JSON, "{} {}"), 400, "malformed-json");
		ProblemAssertions.expectProblem(publish("orders", MediaType.APPLICATION_JSON, null), 400, "missing-body");
		ProblemAssertions.expectProblem(publish("orders", NDJSON, "{\"n\":1}\n{\"n\":\n"), 400, "malformed-json");
		ProblemAssertions.expectProblem(publish("orders", NDJSON, "\n\n"), 400, "missing-body");
		ProblemAssertions.expectProblem(publish("orders", MediaType.TEXT_PLAIN, "{}"), 415, "unsupported-media-type");
		ProblemAssertions.expectProblem(publish("orders", null, "{}"), 415, "unsupported-media-type");
		ProblemAssertions.expectProblem(
				publish("orders", MediaType.APPLICATION_JSON, "\"" + "x".repeat(70 * 1024) + "\""), 413,
				"payload-too-large");
		ProblemAssertions.expectProblem(publish("prices", MediaType.APPLICATION_JSON, "42"), 400,
				"invalid-publication");
	}

	@Test
	void everyContentTypeAnswersOddJsonValuesWithAcceptanceOrAProblemNeverAServerError() {
		List<String> values = List.of("null", "[null]", "[]", "[[]]", "{}", "1", "\"x\"", "true", "[1]", "[\"x\"]",
				"[{}]", "{\"specversion\":null}", "{\"specversion\":\"1.0\",\"id\":null}");
		List<MediaType> types = List.of(MediaType.APPLICATION_JSON, NDJSON,
				MediaType.parseMediaType("application/cloudevents+json"),
				MediaType.parseMediaType("application/cloudevents-batch+json"),
				MediaType.parseMediaType("application/merge-patch+json"));
		for (String topic : List.of("orders", "prices")) {
			for (MediaType type : types) {
				for (String value : values) {
					publish(topic, type, value).expectStatus().value((status) -> {
						assertThat(status).as("%s %s to %s", type, value, topic).isIn(202, 400, 415);
					});
				}
			}
		}
		ProblemAssertions.expectProblem(
				publish("orders", MediaType.parseMediaType("application/cloudevents+json"), "null"), 400,
				"invalid-cloudevent");
		ProblemAssertions.expectProblem(
				publish("orders", MediaType.parseMediaType("application/cloudevents-batch+json"), "[null]"), 400,
				"invalid-cloudevent");
	}

	@Test
	void aBadLineRejectsTheWholeBatch() {
		String before = status("orders");
		ProblemAssertions.expectProblem(publish("orders", NDJSON, "{\"n\":1}\n{\"n\":2}\nnot json\n"), 400,
				"malformed-json");
		assertThat(status("orders")).isEqualTo(before);
	}

	@Test
	void aRetriedPublishWithTheSameIdempotencyKeyPublishesNothingNew() {
		// Keyed publishes are served once the node has read the stored answers: it says
		// so by turning ready.
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.client.get()
				.uri("/actuator/health/readiness")
				.exchange()
				.returnResult(String.class)
				.getStatus()
				.value() == 200);
		String first = this.client.post()
			.uri("/api/v1/publish/orders")
			.contentType(MediaType.APPLICATION_JSON)
			.header("Idempotency-Key", "order-42")
			.bodyValue("{\"order\":42}")
			.exchange()
			.expectStatus()
			.isAccepted()
			.expectHeader()
			.doesNotExist("Idempotent-Replayed")
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		String position = status("orders");
		this.client.post()
			.uri("/api/v1/publish/orders")
			.contentType(MediaType.APPLICATION_JSON)
			.header("Idempotency-Key", "order-42")
			.bodyValue("{\"order\":42}")
			.exchange()
			.expectStatus()
			.isAccepted()
			.expectHeader()
			.valueEquals("Idempotent-Replayed", "true")
			.expectBody(String.class)
			.isEqualTo(first);
		assertThat(status("orders")).isEqualTo(position);
		ProblemAssertions.expectProblem(this.client.post()
			.uri("/api/v1/publish/orders")
			.contentType(MediaType.APPLICATION_JSON)
			.header("Idempotency-Key", "order-42")
			.bodyValue("{\"order\":43}")
			.exchange(), 422, "idempotency-key-reused");
	}

	@Test
	void metricsCountPublishedEventsAndTimeRequestsButNotEachSecurityFilter() {
		publish("orders", MediaType.APPLICATION_JSON, "{\"counted\":true}").expectStatus().isAccepted();
		this.client.get()
			.uri("/actuator/prometheus")
			.exchange()
			.expectBody(String.class)
			.value((body) -> assertThat(body)
				.containsPattern("streamgate_events_published_total\\{.*topic=\"orders\".*\\} [1-9]")
				.containsPattern(
						"http_server_requests_seconds_count\\{.*uri=\"/api/v1/publish/\\{topicId\\}\".*\\} [1-9]")
				// Spring Security's filter chain is not observed filter by filter.
				.doesNotContain("spring_security_"));
	}

	@Test
	void exemplarSamplersReopenAfterFiveSecondsNotAfterEveryEventOfAQuietTopic() {
		// application.yml's key holds dots: bound as one key, it reaches Prometheus's
		// exemplar properties (the meters' samplers are made from them).
		assertThat(this.prometheusConfig.prometheusProperties())
			.containsEntry("io.prometheus.exemplars.sampleIntervalMilliseconds", "5000");
	}

	@Test
	void theAnswerIsWrittenOnTheConnectionsEventLoopNotOnKafkasProducerThread() {
		publish("orders", MediaType.APPLICATION_JSON, "{\"answered\":\"here\"}").expectStatus().isAccepted();
		this.client.post()
			.uri("/api/v1/publish/orders")
			.contentType(MediaType.APPLICATION_JSON)
			.header("Idempotency-Key", "answered-here")
			.bodyValue("{\"answered\":\"here, once\"}")
			.exchange()
			.expectStatus()
			.isAccepted();
		// The producer's one network thread sends every publication's records: it does
		// not also encode and write the answers.
		assertThat(AnsweringThreads.published).hasSizeGreaterThanOrEqualTo(2)
			.allSatisfy((answer) -> assertThat(answer).endsWith(" on the connection's event loop"))
			.noneSatisfy((answer) -> assertThat(answer).contains("kafka"));
	}

	private String status(String topic) {
		return this.client.get()
			.uri("/api/v1/topics/" + topic + "/status")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody()
			.replaceAll("\"lastEventTime\":\"[^\"]*\"", "");
	}

	/** Records which thread commits each publish answer. */
	@TestConfiguration(proxyBeanMethods = false)
	static class AnsweringThreads {

		static final List<String> published = new CopyOnWriteArrayList<>();

		@Bean
		WebFilter answeringThread() {
			return (exchange, chain) -> {
				if (exchange.getRequest().getPath().value().startsWith("/api/v1/publish/orders")) {
					exchange.getResponse().beforeCommit(() -> {
						boolean onLoop = Connections.eventLoop(exchange) instanceof EventLoop loop
								&& loop.inEventLoop();
						published.add(Thread.currentThread().getName()
								+ (onLoop ? " on the connection's event loop" : " elsewhere"));
						return Mono.empty();
					});
				}
				return chain.filter(exchange);
			};
		}

	}

}
