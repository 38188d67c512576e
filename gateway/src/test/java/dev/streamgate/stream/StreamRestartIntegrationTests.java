package dev.streamgate.stream;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import jakarta.json.Json;
import jakarta.json.JsonStructure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;

import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.Sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A gateway restart as operators do it (SIGTERM, start again on the same data): open
 * streams end so that clients reconnect, and resuming from the last id received loses
 * nothing and repeats nothing; snapshot topics come back from their checkpoint.
 */
class StreamRestartIntegrationTests {

	@TempDir
	Path work;

	private GatewayProcess start(String log) {
		return GatewayProcess.startReady(this.work.resolve(log),
				"--streamgate.embedded-kafka.data-dir=" + this.work.resolve("kafka"),
				"--streamgate.embedded-kafka.port=0", "--streamgate.snapshots.checkpoint-every=2",
				"--streamgate.security.enabled=false");
	}

	private static void post(GatewayProcess gateway, String path, MediaType type, String body, int status) {
		gateway.client().post().uri(path).contentType(type).bodyValue(body).exchange().expectStatus().isEqualTo(status);
	}

	private static void publishEvents(GatewayProcess gateway, int from, int to) {
		post(gateway, "/api/v1/publish/orders", MediaType.parseMediaType("application/x-ndjson"),
				String.join("\n", IntStream.range(from, to).mapToObj((i) -> "{\"n\":" + i + "}").toList()), 202);
	}

	private static String document(int version) {
		return "{\"version\":" + version + ",\"items\":["
				+ String.join(",", IntStream.rangeClosed(1, version).mapToObj((i) -> "{\"id\":" + i + "}").toList())
				+ "]}";
	}

	@Test
	void streamsEndOnShutdownAndResumeAfterARestartWithoutGapOrDuplicate() {
		List<ServerSentEvent<String>> before = new CopyOnWriteArrayList<>();
		CompletableFuture<Void> ended;
		try (GatewayProcess gateway = start("first.log")) {
			post(gateway, "/api/v1/topics", MediaType.APPLICATION_JSON, "{\"id\":\"orders\",\"partitions\":3}", 201);
			post(gateway, "/api/v1/topics", MediaType.APPLICATION_JSON,
					"{\"id\":\"inventory\",\"payloadType\":\"snapshot\"}", 201);
			ended = new Sse(gateway.baseUrl()).stream("/api/v1/stream/orders", null)
				.doOnNext(before::add)
				.then()
				.timeout(Duration.ofSeconds(60))
				.toFuture();
			await().pollDelay(Duration.ofMillis(500)).until(() -> true);
			publishEvents(gateway, 0, 20);
			for (int version = 1; version <= 5; version++) {
				post(gateway, "/api/v1/publish/inventory", MediaType.APPLICATION_JSON, document(version), 202);
			}
			await().atMost(Duration.ofSeconds(20)).until(() -> events(before) == 20);
			gateway.stop();
		}
		// The stream ended with the shutdown and a problem that says so, as a signal to
		// reconnect; the client resumes from the last id it received, as EventSource
		// does.
		ended.join();
		assertThat(before.get(before.size() - 1).data()).contains("shutting-down");
		String lastId = lastId(before);

		try (GatewayProcess gateway = start("second.log")) {
			publishEvents(gateway, 20, 35);
			List<ServerSentEvent<String>> after = new Sse(gateway.baseUrl()).take("/api/v1/stream/orders", lastId, 15);
			List<String> all = new java.util.ArrayList<>(
					before.stream().filter((event) -> event.id() != null).map(ServerSentEvent::data).toList());
			all.addAll(after.stream().map(ServerSentEvent::data).toList());
			assertThat(all).doesNotHaveDuplicates()
				.containsExactlyInAnyOrderElementsOf(
						IntStream.range(0, 35).mapToObj((i) -> "{\"n\":" + i + "}").toList());

			List<ServerSentEvent<String>> inventory = new Sse(gateway.baseUrl()).takeAfter(
					"/api/v1/stream/inventory?mode=snapshot-patch", null, 2,
					() -> post(gateway, "/api/v1/publish/inventory", MediaType.APPLICATION_JSON, document(6), 202));
			assertThat(inventory.get(0).event()).isEqualTo("snapshot");
			JsonStructure rebuilt = parse(inventory.get(0).data());
			assertThat(rebuilt).isEqualTo(parse(document(5)));
			assertThat(inventory.get(1).event()).isEqualTo("patch");
			rebuilt = JsonPatches.apply(rebuilt,
					Json.createReader(new StringReader(inventory.get(1).data())).readArray());
			assertThat(rebuilt).isEqualTo(parse(document(6)));
		}
	}

	@Test
	void aStreamOfSeveralTopicsResumesEachExactlyAfterARestart() {
		String path = "/api/v1/stream?topic=orders&topic=inventory&topic=audit";
		List<ServerSentEvent<String>> before = new CopyOnWriteArrayList<>();
		CompletableFuture<Void> ended;
		try (GatewayProcess gateway = start("first.log")) {
			post(gateway, "/api/v1/topics", MediaType.APPLICATION_JSON, "{\"id\":\"orders\",\"partitions\":3}", 201);
			post(gateway, "/api/v1/topics", MediaType.APPLICATION_JSON,
					"{\"id\":\"inventory\",\"payloadType\":\"snapshot\"}", 201);
			post(gateway, "/api/v1/topics", MediaType.APPLICATION_JSON, "{\"id\":\"audit\"}", 201);
			ended = new Sse(gateway.baseUrl()).stream(path, null)
				.doOnNext(before::add)
				.then()
				.timeout(Duration.ofSeconds(60))
				.toFuture();
			await().pollDelay(Duration.ofMillis(500)).until(() -> true);
			publishEvents(gateway, 0, 10);
			for (int version = 1; version <= 3; version++) {
				post(gateway, "/api/v1/publish/inventory", MediaType.APPLICATION_JSON, document(version), 202);
			}
			post(gateway, "/api/v1/publish/audit", MediaType.parseMediaType("application/x-ndjson"),
					String.join("\n", IntStream.range(0, 5).mapToObj((i) -> "{\"a\":" + i + "}").toList()), 202);
			await().atMost(Duration.ofSeconds(20)).until(() -> events(before) == 18);
			gateway.stop();
		}
		ended.join();
		String lastId = lastId(before);
		assertThat(lastId).contains("orders@", "inventory@", "audit@");

		try (GatewayProcess gateway = start("second.log")) {
			// Only orders and inventory change while the client is away.
			publishEvents(gateway, 10, 25);
			for (int version = 4; version <= 5; version++) {
				post(gateway, "/api/v1/publish/inventory", MediaType.APPLICATION_JSON, document(version), 202);
			}
			List<ServerSentEvent<String>> after = new Sse(gateway.baseUrl()).takeAfter(path, lastId, 18,
					() -> post(gateway, "/api/v1/publish/audit", MediaType.APPLICATION_JSON, "{\"a\":5}", 202));
			List<ServerSentEvent<String>> all = new java.util.ArrayList<>(
					before.stream().filter((event) -> event.id() != null).toList());
			all.addAll(after);
			assertThat(data(all, "orders")).containsExactlyInAnyOrderElementsOf(
					IntStream.range(0, 25).mapToObj((i) -> "{\"n\":" + i + "}").toList());
			assertThat(data(all, "audit"))
				.containsExactlyElementsOf(IntStream.range(0, 6).mapToObj((i) -> "{\"a\":" + i + "}").toList());
			// The document, rebuilt from the first snapshot and every patch after it in
			// both streams, is the last version: no patch missing or applied twice.
			List<ServerSentEvent<String>> inventory = all.stream()
				.filter((event) -> topic(event).equals("inventory"))
				.toList();
			assertThat(inventory.get(0).event()).isEqualTo("snapshot");
			assertThat(inventory.subList(1, inventory.size())).extracting(ServerSentEvent::event).containsOnly("patch");
			JsonStructure rebuilt = null;
			for (ServerSentEvent<String> event : inventory) {
				String inner = inner(event);
				rebuilt = "snapshot".equals(event.event()) ? parse(inner)
						: JsonPatches.apply(rebuilt, Json.createReader(new StringReader(inner)).readArray());
			}
			assertThat(rebuilt).isEqualTo(parse(document(5)));
			assertThat(inventory).hasSize(5);
		}
	}

	private static String topic(ServerSentEvent<String> event) {
		return Json.createReader(new StringReader(event.data())).readObject().getString("topic");
	}

	private static String inner(ServerSentEvent<String> event) {
		return Json.createReader(new StringReader(event.data())).readObject().get("data").toString();
	}

	private static List<String> data(List<ServerSentEvent<String>> events, String topicId) {
		return events.stream()
			.filter((event) -> topic(event).equals(topicId))
			.map(StreamRestartIntegrationTests::inner)
			.toList();
	}

	private static JsonStructure parse(String json) {
		return (JsonStructure) JsonPatches.read(json.getBytes(StandardCharsets.UTF_8));
	}

	/** The data events received (a stream's last event, a problem, has no id). */
	private static long events(List<ServerSentEvent<String>> received) {
		return received.stream().filter((event) -> event.id() != null).count();
	}

	/** The id a client resumes from: that of the last event that had one. */
	private static String lastId(List<ServerSentEvent<String>> received) {
		String last = null;
		for (ServerSentEvent<String> event : received) {
			last = (event.id() != null) ? event.id() : last;
		}
		return last;
	}

}
