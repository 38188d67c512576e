package dev.streamgate.trace;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.cloudevents.CloudEvent;
import io.cloudevents.jackson.JsonFormat;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import dev.streamgate.bench.sink.WebhookSink;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.KafkaRecords;
import dev.streamgate.support.TestKafka;
import dev.streamgate.support.JsonRequests;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.Sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * W3C trace context from a publish request to the webhook request that delivers the
 * event, through Kafka: the publication's span (the HTTP server span, a child of the
 * caller's {@code traceparent}) is kept with the event, each delivery is a span of the
 * same trace whose context the webhook receives, a stream in CloudEvents form shows it
 * (the distributed tracing extension), and the spans are exported with OTLP to the
 * configured endpoint.
 */
class TraceContextIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

	private static final String CALLER_SPAN = "00f067aa0ba902b7";

	private static final Pattern TRACEPARENT = Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-01");

	private static final List<byte[]> exported = new CopyOnWriteArrayList<>();

	private static DisposableServer collector;

	private static WebhookSink sink;

	private static RunningGateway gateway;

	@BeforeAll
	static void start() {
		collector = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.route((routes) -> routes
				.post("/v1/traces",
						(request, response) -> request.receive()
							.aggregate()
							.asByteArray()
							.doOnNext(exported::add)
							.then(response.status(200).send()))
				// A source for a poller.
				.get("/doc",
						(request, response) -> response.header("Content-Type", "application/json")
							.sendString(Mono.just("{\"n\":1}"))))
			.bindNow();
		sink = WebhookSink.start("127.0.0.1", 0);
		List<String> args = new ArrayList<>(List.of(GatewayKafka.loopbackArguments()));
		args.add("--management.tracing.sampling.probability=1.0");
		args.add("--management.opentelemetry.tracing.export.otlp.endpoint=http://127.0.0.1:" + collector.port()
				+ "/v1/traces");
		gateway = RunningGateway.start(args.toArray(String[]::new));
	}

	@AfterAll
	static void stop() {
		gateway.close();
		sink.close();
		collector.disposeNow();
	}

	@Test
	void theTraceOfAPublishRequestReachesTheWebhookRequestThatDeliversTheEvent() throws Exception {
		gateway.post("/api/v1/topics", "{\"id\":\"traced\"}", 201);
		sink.endpoint("traced", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
		gateway.post("/api/v1/topics/traced/webhooks", "{\"url\":\"" + sink.url("traced") + "\"}", 201);
		String out = "traced-out-" + System.nanoTime();
		try (Admin admin = Admin
			.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
			admin.createTopics(List.of(new NewTopic(out, 1, (short) 1))).all().get();
		}
		gateway.post("/api/v1/topics/traced/webhooks",
				"{\"kafka\":{\"bootstrapServers\":\"" + TestKafka.bootstrapServers() + "\",\"topic\":\"" + out + "\"}}",
				201);
		List<ServerSentEvent<String>> streamed = new Sse(gateway.baseUrl()).takeAfter(
				"/api/v1/stream/traced?format=cloudevents", null, 1,
				() -> JsonRequests.send(gateway.client()
					.post()
					.uri("/api/v1/publish/traced")
					.contentType(MediaType.APPLICATION_JSON)
					.header("traceparent", "00-" + TRACE_ID + "-" + CALLER_SPAN + "-01"), "{\"n\":1}", 202));
		// The event was published in the publish request's span, of the caller's trace.
		CloudEvent event = new JsonFormat().deserialize(streamed.get(0).data().getBytes(StandardCharsets.UTF_8));
		Matcher published = TRACEPARENT.matcher(String.valueOf(event.getExtension("traceparent")));
		assertThat(published.matches()).as("traceparent extension %s", event.getExtension("traceparent")).isTrue();
		assertThat(published.group(1)).isEqualTo(TRACE_ID);
		String publishSpan = published.group(2);
		assertThat(publishSpan).isNotEqualTo(CALLER_SPAN);
		// The webhook request: the same trace, a span of its own (the delivery's).
		await().atMost(WAIT).until(() -> !sink.endpoint("traced").received().isEmpty());
		String received = sink.endpoint("traced").received().get(0).headers().get("traceparent");
		Matcher delivered = TRACEPARENT.matcher(String.valueOf(received));
		assertThat(delivered.matches()).as("webhook traceparent %s", received).isTrue();
		assertThat(delivered.group(1)).isEqualTo(TRACE_ID);
		String deliverySpan = delivered.group(2);
		assertThat(deliverySpan).isNotIn(CALLER_SPAN, publishSpan);
		// The Kafka subscription's record: the same trace, in its headers.
		await().atMost(WAIT).until(() -> !KafkaRecords.readAll(TestKafka.bootstrapServers(), out).isEmpty());
		Header header = KafkaRecords.readAll(TestKafka.bootstrapServers(), out)
			.get(0)
			.headers()
			.lastHeader("traceparent");
		assertThat(header).isNotNull();
		Matcher written = TRACEPARENT.matcher(new String(header.value(), StandardCharsets.UTF_8));
		assertThat(written.matches()).isTrue();
		assertThat(written.group(1)).isEqualTo(TRACE_ID);
		// Both spans went to the OTLP endpoint (their ids, as bytes, in the exported
		// protobuf).
		await().atMost(WAIT)
			.until(() -> contains(HexFormat.of().parseHex(TRACE_ID)) && contains(HexFormat.of().parseHex(publishSpan))
					&& contains(HexFormat.of().parseHex(deliverySpan)));
		// The spans of the event's fan-out and delivery on this node, by their names.
		await().atMost(WAIT).until(() -> contains(bytes("fan-out traced")) && contains(bytes("deliver traced")));
	}

	@Test
	void anEventPublishedInATraceThatIsNotSampledCarriesItOnWithoutSpans() {
		String unsampled = "5a2b9c3d4e5f60718293a4b5c6d7e8f9";
		String sampled = "6b3c0d4e5f60718293a4b5c6d7e8f90a";
		gateway.post("/api/v1/topics", "{\"id\":\"quiet\"}", 201);
		sink.endpoint("quiet", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
		gateway.post("/api/v1/topics/quiet/webhooks", "{\"url\":\"" + sink.url("quiet") + "\"}", 201);
		for (String trace : List.of(unsampled, sampled)) {
			JsonRequests.send(gateway.client()
				.post()
				.uri("/api/v1/publish/quiet")
				.contentType(MediaType.APPLICATION_JSON)
				.header("traceparent", "00-" + trace + "-" + CALLER_SPAN + (trace.equals(sampled) ? "-01" : "-00")),
					"{\"n\":1}", 202);
		}
		await().atMost(WAIT).until(() -> sink.endpoint("quiet").received().size() >= 2);
		// The delivery goes on in the caller's trace, not sampled.
		String first = sink.endpoint("quiet").received().get(0).headers().get("traceparent");
		assertThat(first).startsWith("00-" + unsampled + "-").endsWith("-00");
		// The second delivery began after the first ended, so once its span reached the
		// collector, a span of the first would have too: none did.
		Matcher second = TRACEPARENT.matcher(sink.endpoint("quiet").received().get(1).headers().get("traceparent"));
		assertThat(second.matches()).isTrue();
		assertThat(second.group(1)).isEqualTo(sampled);
		await().atMost(WAIT).until(() -> contains(HexFormat.of().parseHex(second.group(2))));
		assertThat(contains(HexFormat.of().parseHex(unsampled))).isFalse();
	}

	@Test
	void eachPollIsASpan() {
		gateway.post("/api/v1/topics",
				"{\"id\":\"traced-poll\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\","
						+ "\"url\":\"http://127.0.0.1:" + collector.port() + "/doc\",\"pollingPeriod\":\"PT0.5S\"}}",
				201);
		await().atMost(WAIT).until(() -> contains(bytes("poll traced-poll")));
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static boolean contains(byte[] id) {
		for (byte[] request : exported) {
			for (int i = 0; i + id.length <= request.length; i++) {
				int j = 0;
				while (j < id.length && request[i + j] == id[j]) {
					j++;
				}
				if (j == id.length) {
					return true;
				}
			}
		}
		return false;
	}

}
