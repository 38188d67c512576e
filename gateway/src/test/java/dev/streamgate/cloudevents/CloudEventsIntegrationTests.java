package dev.streamgate.cloudevents;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.cloudevents.CloudEvent;
import io.cloudevents.http.HttpMessageFactory;
import io.cloudevents.jackson.JsonFormat;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;

import dev.streamgate.bench.sink.WebhookSink;
import dev.streamgate.bench.sink.WebhookSink.Received;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.JsonRequests;
import dev.streamgate.support.KafkaRecords;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.Sse;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * CloudEvents in and out over real HTTP and Kafka, read on both ends with the CloudEvents
 * Java SDK: publications in the structured, batch and binary modes keep their attributes
 * in Kafka headers (the Kafka binding); webhooks deliver structured or binary CloudEvents
 * (signed as every delivery, checked with the Standard Webhooks library), and a stream
 * may carry them; filters see the attributes.
 */
class CloudEventsIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

	private static final JsonFormat FORMAT = new JsonFormat();

	private static String prefix;

	private static WebhookSink sink;

	private static RunningGateway gateway;

	@BeforeAll
	static void start() {
		sink = WebhookSink.start("127.0.0.1", 0);
		gateway = RunningGateway.start(GatewayKafka.loopbackArguments());
		prefix = gateway.context().getEnvironment().getProperty("streamgate.kafka.topic-prefix");
	}

	@AfterAll
	static void stop() {
		gateway.close();
		sink.close();
	}

	@Test
	void cloudEventsInEveryModeKeepTheirAttributesAndReachWebhooksAndStreamsAsCloudEvents() throws Exception {
		// Dedicated storage: the records are read back with Kafka's own consumer.
		gateway.post("/api/v1/topics", "{\"id\":\"ce-orders\",\"storage\":\"dedicated\"}", 201);
		sink.endpoint("ce-structured", SECRET);
		sink.endpoint("ce-binary", SECRET);
		gateway.post("/api/v1/topics/ce-orders/webhooks", "{\"url\":\"" + sink.url("ce-structured") + "\",\"secret\":\""
				+ SECRET + "\",\"cloudEvents\":\"structured\"}", 201);
		gateway.post("/api/v1/topics/ce-orders/webhooks", "{\"url\":\"" + sink.url("ce-binary") + "\",\"secret\":\""
				+ SECRET + "\",\"cloudEvents\":\"binary\",\"filter\":\"headers['ce_source'] == '/shop'\"}", 201);
		Sse sse = new Sse(gateway.baseUrl());
		List<ServerSentEvent<String>> streamed = sse.takeAfter("/api/v1/stream/ce-orders?format=cloudevents", null, 4,
				() -> {
					publish(MediaType.parseMediaType("application/cloudevents+json"), Map.of(),
							"{\"specversion\":\"1.0\",\"id\":\"A-1\",\"source\":\"/shop\",\"type\":\"order.created\","
									+ "\"subject\":\"o-1\",\"partitionkey\":\"cust-1\",\"time\":\"2026-11-26T10:00:00Z\","
									+ "\"datacontenttype\":\"application/json\",\"data\":{\"amount\":5}}");
					publish(MediaType.APPLICATION_JSON, Map.of("ce-specversion", "1.0", "ce-id", "B-1", "ce-source",
							"/shop", "ce-type", "order.paid", "ce-tenant", "acme"), "{\"amount\":6}");
					publish(MediaType.parseMediaType("application/cloudevents-batch+json"), Map.of(),
							"[{\"specversion\":\"1.0\",\"id\":\"C-1\",\"source\":\"/warehouse\",\"type\":\"order.shipped\","
									+ "\"data\":{\"amount\":7}},{\"specversion\":\"1.0\",\"id\":\"C-2\",\"source\":\"/shop\","
									+ "\"type\":\"order.closed\",\"data\":{\"amount\":8}}]");
				});
		// The stream: each data a structured CloudEvent, as the SDK reads it.
		List<CloudEvent> events = streamed.stream()
			.map((event) -> FORMAT.deserialize(event.data().getBytes(StandardCharsets.UTF_8)))
			.toList();
		assertThat(events).extracting(CloudEvent::getId).containsExactly("A-1", "B-1", "C-1", "C-2");
		assertThat(events).extracting(CloudEvent::getType)
			.containsExactly("order.created", "order.paid", "order.shipped", "order.closed");
		CloudEvent first = events.get(0);
		assertThat(first.getSource()).isEqualTo(URI.create("/shop"));
		assertThat(first.getSubject()).isEqualTo("o-1");
		assertThat(first.getTime().toInstant()).hasToString("2026-11-26T10:00:00Z");
		assertThat(first.getExtension("partitionkey")).isEqualTo("cust-1");
		assertThat(first.getExtension("streamgatecursor")).isEqualTo(streamed.get(0).id());
		assertThat(new String(first.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"amount\":5}");
		assertThat(events.get(1).getExtension("tenant")).isEqualTo("acme");
		// Kafka: the attributes in the headers of the Kafka binding, the key the
		// partition key.
		List<ConsumerRecord<String, String>> records = KafkaRecords.readAll(TestKafka.bootstrapServers(),
				prefix + "events.ce-orders");
		ConsumerRecord<String, String> created = records.stream()
			.filter((record) -> header(record, "ce_id").equals("A-1"))
			.findFirst()
			.orElseThrow();
		assertThat(created.key()).isEqualTo("cust-1");
		assertThat(created.value()).isEqualTo("{\"amount\":5}");
		assertThat(header(created, "ce_type")).isEqualTo("order.created");
		assertThat(header(created, "ce_source")).isEqualTo("/shop");
		assertThat(header(created, "ce_specversion")).isEqualTo("1.0");
		assertThat(header(created, "ce_subject")).isEqualTo("o-1");
		assertThat(header(created, "content-type")).isEqualTo("application/json");
		// The structured webhook: every event, the body a CloudEvent, the delivery
		// signed.
		await().atMost(WAIT).until(() -> sink.endpoint("ce-structured").received().size() >= 4);
		List<Received> structured = sink.endpoint("ce-structured").received();
		assertThat(structured).allSatisfy((delivery) -> {
			assertThat(delivery.signatureValid()).isTrue();
			assertThat(delivery.headers().get("content-type")).startsWith("application/cloudevents+json");
		});
		assertThat(structured)
			.extracting((delivery) -> FORMAT.deserialize(delivery.body().getBytes(StandardCharsets.UTF_8)).getId())
			.containsExactly("A-1", "B-1", "C-1", "C-2");
		// The binary webhook: the filter on ce_source left the warehouse's event out.
		await().atMost(WAIT).until(() -> sink.endpoint("ce-binary").received().size() >= 3);
		List<CloudEvent> binary = sink.endpoint("ce-binary").received().stream().map((delivery) -> {
			assertThat(delivery.signatureValid()).isTrue();
			return HttpMessageFactory
				.createReader(new HashMap<>(delivery.headers()), delivery.body().getBytes(StandardCharsets.UTF_8))
				.toEvent();
		}).toList();
		assertThat(binary).extracting(CloudEvent::getId).containsExactly("A-1", "B-1", "C-2");
		assertThat(binary.get(1).getExtension("tenant")).isEqualTo("acme");
		assertThat(new String(binary.get(2).getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"amount\":8}");
		// A plain publication is a CloudEvent of streamgate's making.
		String id = gateway.post("/api/v1/publish/ce-orders?type=order.noted", "{\"amount\":9}", 202);
		await().atMost(WAIT).until(() -> sink.endpoint("ce-structured").received().size() >= 5);
		CloudEvent made = FORMAT
			.deserialize(sink.endpoint("ce-structured").received().get(4).body().getBytes(StandardCharsets.UTF_8));
		String cursor = id.replaceAll(".*\"id\":\"([^\"]+)\".*", "$1");
		assertThat(made.getId()).isEqualTo("ce-orders:" + cursor);
		assertThat(made.getSource()).isEqualTo(URI.create("/streamgate/topics/ce-orders"));
		assertThat(made.getType()).isEqualTo("order.noted");
		assertThat(made.getExtension("streamgatecursor")).isEqualTo(cursor);
	}

	@Test
	void kafkaSubscriptionsWriteStructuredOrBinaryCloudEvents() throws Exception {
		gateway.post("/api/v1/topics", "{\"id\":\"ce-kafka\"}", 201);
		String structured = "ce-structured-" + System.nanoTime();
		String binary = "ce-binary-" + System.nanoTime();
		try (Admin admin = Admin
			.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
			admin.createTopics(List.of(new NewTopic(structured, 1, (short) 1), new NewTopic(binary, 1, (short) 1)))
				.all()
				.get();
		}
		for (String[] target : List.of(new String[] { structured, "structured" }, new String[] { binary, "binary" })) {
			gateway.post("/api/v1/topics/ce-kafka/webhooks",
					"{\"cloudEvents\":\"" + target[1] + "\",\"kafka\":{\"bootstrapServers\":\""
							+ TestKafka.bootstrapServers() + "\",\"topic\":\"" + target[0] + "\"}}",
					201);
		}
		publish("ce-kafka", MediaType.parseMediaType("application/cloudevents+json"), Map.of(),
				"{\"specversion\":\"1.0\",\"id\":\"K-1\",\"source\":\"/shop\",\"type\":\"order.created\","
						+ "\"data\":{\"amount\":5}}",
				202);
		await().atMost(WAIT)
			.until(() -> !KafkaRecords.readAll(TestKafka.bootstrapServers(), structured).isEmpty()
					&& !KafkaRecords.readAll(TestKafka.bootstrapServers(), binary).isEmpty());
		// Structured: the record's value is the CloudEvent, as the SDK reads it.
		ConsumerRecord<String, String> whole = KafkaRecords.readAll(TestKafka.bootstrapServers(), structured).get(0);
		assertThat(header(whole, "content-type")).startsWith("application/cloudevents+json");
		CloudEvent event = FORMAT.deserialize(whole.value().getBytes(StandardCharsets.UTF_8));
		assertThat(event.getId()).isEqualTo("K-1");
		assertThat(event.getType()).isEqualTo("order.created");
		assertThat(new String(event.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"amount\":5}");
		// Binary: the value is the data, the attributes are ce_* headers (the Kafka
		// binding).
		ConsumerRecord<String, String> parts = KafkaRecords.readAll(TestKafka.bootstrapServers(), binary).get(0);
		assertThat(parts.value()).isEqualTo("{\"amount\":5}");
		assertThat(header(parts, "ce_id")).isEqualTo("K-1");
		assertThat(header(parts, "ce_source")).isEqualTo("/shop");
		assertThat(header(parts, "ce_type")).isEqualTo("order.created");
		assertThat(header(parts, "ce_specversion")).isEqualTo("1.0");
		assertThat(header(parts, "ce_streamgatecursor")).isNotEmpty();
	}

	@Test
	void badCloudEventsAreProblems() {
		gateway.post("/api/v1/topics", "{\"id\":\"ce-bad\"}", 201);
		gateway.post("/api/v1/topics", "{\"id\":\"ce-doc\",\"payloadType\":\"snapshot\"}", 201);
		MediaType structured = MediaType.parseMediaType("application/cloudevents+json");
		assertThat(publish("ce-bad", structured, Map.of(), "{\"specversion\":\"1.0\",\"source\":\"/s\",\"type\":\"t\"}",
				400))
			.contains("invalid-cloudevent");
		assertThat(publish("ce-bad", structured, Map.of(),
				"{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"t\",\"datacontenttype\":\"text/plain\","
						+ "\"data\":\"hello\"}",
				400))
			.contains("invalid-cloudevent")
			.contains("text/plain");
		assertThat(publish("ce-bad", structured, Map.of(),
				"{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"an order\",\"data\":{}}", 400))
			.contains("no streamgate event type");
		assertThat(
				publish("ce-bad", MediaType.parseMediaType("application/cloudevents-batch+json"), Map.of(), "[]", 400))
			.contains("invalid-cloudevent");
		assertThat(
				publish("ce-bad", MediaType.APPLICATION_JSON, Map.of("ce-specversion", "1.0", "ce-id", "1"), "{}", 400))
			.contains("invalid-cloudevent");
		assertThat(publish("ce-doc", structured, Map.of(),
				"{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"t\",\"data\":{}}", 400))
			.contains("snapshot topic");
		assertThat(gateway.post("/api/v1/topics/ce-bad/webhooks",
				"{\"url\":\"" + sink.url("x") + "\",\"cloudEvents\":\"yes\"}", 400))
			.contains("\"pointer\":\"/cloudEvents\"");
		assertThat(gateway.get("/api/v1/stream/ce-bad?format=xml")).contains("invalid-parameter");
	}

	private static void publish(MediaType type, Map<String, String> headers, String body) {
		publish("ce-orders", type, headers, body, 202);
	}

	private static String publish(String topic, MediaType type, Map<String, String> headers, String body, int status) {
		return JsonRequests.send(gateway.client()
			.post()
			.uri("/api/v1/publish/" + topic)
			.contentType(type)
			.headers((h) -> headers.forEach(h::set)), body, status);
	}

	private static String header(ConsumerRecord<String, String> record, String name) {
		Header header = record.headers().lastHeader(name);
		return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : "";
	}

}
