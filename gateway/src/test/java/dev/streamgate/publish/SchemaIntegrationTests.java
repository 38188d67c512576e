package dev.streamgate.publish;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.Sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Topics that declare a JSON Schema for their payloads: the schema is checked when the
 * topic is defined, every publication is checked against it (a 400 names where it does
 * not match), and a polled document that does not match is a problem event while the last
 * good document stays the topic's.
 */
class SchemaIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final String ORDER = "{\"type\":\"object\",\"required\":[\"amount\"],"
			+ "\"properties\":{\"amount\":{\"type\":\"number\",\"minimum\":0},"
			+ "\"lines\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}}";

	private static final AtomicReference<String> served = new AtomicReference<>();

	private static DisposableServer source;

	private static RunningGateway gateway;

	@BeforeAll
	static void start() {
		source = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.handle((request, response) -> response.header("Content-Type", "application/json")
				.sendString(Mono.fromSupplier(served::get)))
			.bindNow();
		gateway = RunningGateway.start(GatewayKafka.loopbackArguments());
	}

	@AfterAll
	static void stop() {
		gateway.close();
		source.disposeNow();
	}

	@Test
	void aTopicsSchemaIsCheckedWhenTheTopicIsDefined() {
		assertThat(gateway.post("/api/v1/topics", "{\"id\":\"sch-bad\",\"schema\":{\"type\":\"objekt\"}}", 400))
			.contains("invalid-topic")
			.contains("\"pointer\":\"/schema/type\"");
		assertThat(gateway.post("/api/v1/topics", "{\"id\":\"sch-bad\",\"schema\":{\"minimum\":\"a\"}}", 400))
			.contains("\"pointer\":\"/schema/minimum\"");
		assertThat(gateway.post("/api/v1/topics", "{\"id\":\"sch-bad\",\"schema\":[1]}", 400))
			.contains("\"pointer\":\"/schema\"");
		// Nothing is loaded from elsewhere: not a URL, not a file.
		for (String ref : List.of("http://127.0.0.1:" + source.port() + "/schema", "file:///etc/passwd",
				"classpath:application.properties")) {
			assertThat(
					gateway.post("/api/v1/topics", "{\"id\":\"sch-bad\",\"schema\":{\"$ref\":\"" + ref + "\"}}", 400))
				.as(ref)
				.contains("\"pointer\":\"/schema/$ref\"")
				.contains("nothing is loaded from elsewhere");
		}
		String created = gateway.post("/api/v1/topics", "{\"id\":\"sch-orders\",\"schema\":" + ORDER + "}", 201);
		assertThat(created).contains("\"schema\":" + ORDER);
		assertThat(gateway.get("/api/v1/topics/sch-orders")).contains("\"schema\":" + ORDER);
		gateway.patch("/api/v1/topics/sch-orders", "{\"schema\":{\"type\":7}}", 400);
		// Another draft, named in $schema.
		gateway.patch("/api/v1/topics/sch-orders",
				"{\"schema\":{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\"}}", 200);
		gateway.post("/api/v1/publish/sch-orders", "[]", 400);
		gateway.patch("/api/v1/topics/sch-orders", "{\"schema\":null}", 200);
		assertThat(gateway.get("/api/v1/topics/sch-orders")).doesNotContain("\"schema\"");
		gateway.post("/api/v1/publish/sch-orders", "[]", 202);
	}

	@Test
	void publicationsThatDoNotMatchAreRefusedNamingWhere() {
		gateway.post("/api/v1/topics", "{\"id\":\"sch-events\",\"schema\":" + ORDER + "}", 201);
		assertThat(gateway.post("/api/v1/publish/sch-events", "{\"amount\":\"x\"}", 400))
			.contains("invalid-publication")
			.contains("{\"pointer\":\"/amount\",\"detail\":\"string found, number expected\"}");
		assertThat(gateway.post("/api/v1/publish/sch-events", "{\"amount\":-1,\"lines\":[\"a\",2]}", 400))
			.contains("\"pointer\":\"/amount\"")
			.contains("{\"pointer\":\"/lines/1\",\"detail\":\"integer found, string expected\"}");
		assertThat(gateway.post("/api/v1/publish/sch-events", "{}", 400))
			.contains("{\"pointer\":\"\",\"detail\":\"required property 'amount' not found\"}");
		// A batch is all or nothing: its second line does not match, nothing is
		// published.
		String batch = gateway.client()
			.post()
			.uri("/api/v1/publish/sch-events")
			.contentType(MediaType.parseMediaType("application/x-ndjson"))
			.bodyValue("{\"amount\":1}\n{\"amount\":\"two\"}\n")
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		assertThat(batch).contains("Publication 2 of the batch").contains("\"pointer\":\"/amount\"");
		gateway.post("/api/v1/publish/sch-events", "{\"amount\":3,\"lines\":[\"a\"]}", 202);
		// Only what matched was published: neither refused publication nor the batch's
		// first line.
		List<ServerSentEvent<String>> events = new Sse(gateway.baseUrl()).takeAfter(
				"/api/v1/stream/sch-events?lastEventId=earliest", null, 2,
				() -> gateway.post("/api/v1/publish/sch-events", "{\"amount\":4}", 202));
		assertThat(events).extracting(ServerSentEvent::data)
			.containsExactly("{\"amount\":3,\"lines\":[\"a\"]}", "{\"amount\":4}");
	}

	@Test
	void aPolledDocumentThatDoesNotMatchIsAProblemAndTheLastGoodDocumentStays() {
		served.set("{\"amount\":1,\"lines\":[\"a\"]}");
		gateway.post("/api/v1/topics",
				"{\"id\":\"sch-polled\",\"payloadType\":\"snapshot\",\"schema\":" + ORDER
						+ ",\"publisher\":{\"type\":\"http-poller\",\"url\":\"http://127.0.0.1:" + source.port()
						+ "/doc\",\"pollingPeriod\":\"PT0.5S\"}}",
				201);
		List<ServerSentEvent<String>> events = new java.util.concurrent.CopyOnWriteArrayList<>();
		Disposable stream = new Sse(gateway.baseUrl()).stream("/api/v1/stream/sch-polled?mode=snapshot-patch", null)
			.subscribe(events::add);
		try {
			await().atMost(WAIT).until(() -> events.size() >= 1);
			assertThat(events.get(0).event()).isEqualTo("snapshot");
			assertThat(events.get(0).data()).isEqualTo("{\"amount\":1,\"lines\":[\"a\"]}");
			served.set("{\"amount\":\"lots\",\"lines\":[\"a\"]}");
			await().atMost(WAIT).until(() -> events.size() >= 2);
			assertThat(events.get(1).event()).isEqualTo("problem");
			assertThat(events.get(1).data()).contains("problems/source-schema-mismatch")
				.contains("/amount string found, number expected");
			served.set("{\"amount\":2,\"lines\":[\"a\"]}");
			await().atMost(WAIT).until(() -> events.size() >= 3);
			// The patch is from the last good document, not from the one refused.
			assertThat(events.get(2).event()).isEqualTo("patch");
			assertThat(events.get(2).data()).isEqualTo("[{\"op\":\"replace\",\"path\":\"/amount\",\"value\":2}]");
		}
		finally {
			stream.dispose();
		}
	}

}
