package dev.streamgate.poller;

import java.io.StringReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;

import dev.streamgate.bench.source.MockSourceApi;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.Sse;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two gateway processes share the polling of a topic through the lease group: exactly one
 * polls it, and when that one is killed (SIGKILL) the other takes over, continuing the
 * document from its checkpoint so that subscribers see patches, not a reset.
 */
class PollerFailoverIntegrationTests {

	private static final Pattern NODE = Pattern.compile("\\(node ([0-9a-f]+)\\)");

	private static final Duration PERIOD = Duration.ofMillis(500);

	@Test
	void exactlyOneNodePollsAndAnotherTakesOverWithin30SecondsOfAKill(@TempDir Path dir) {
		try (MockSourceApi source = MockSourceApi.start(MockSourceApi.Settings.forTests())) {
			WebClient sourceClient = WebClient.create("http://127.0.0.1:" + source.port());
			List<String> args = new ArrayList<>(List.of(GatewayKafka.arguments(TestKafka.uniquePrefix())));
			args.remove("--server.port=0");
			args.add("--streamgate.egress.allowed-cidrs=127.0.0.1/32");
			args.add("--streamgate.embedded-kafka.data-dir=" + dir.resolve("unused"));
			try (GatewayProcess first = GatewayProcess.startReady(dir.resolve("first.log"),
					args.toArray(String[]::new));
					GatewayProcess second = GatewayProcess.startReady(dir.resolve("second.log"),
							args.toArray(String[]::new))) {
				first.client()
					.post()
					.uri("/api/v1/topics")
					.contentType(MediaType.APPLICATION_JSON)
					.bodyValue(
							"{\"id\":\"failover\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-poller\","
									+ "\"url\":\"" + source.url("failover")
									+ "?size=2000\",\"pollingPeriod\":\"PT0.5S\"}}")
					.exchange()
					.expectStatus()
					.isCreated();
				// Settled: for a few seconds every poll comes from one node, one per
				// period.
				await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).until(() -> {
					List<Request> recent = requestsSince(sourceClient, System.currentTimeMillis() - 4000);
					return recent.size() >= 6 && recent.stream().map(Request::node).distinct().count() == 1;
				});
				List<Request> window = requestsSince(sourceClient, System.currentTimeMillis() - 4000);
				assertThat(window.size()).as("polls in 4 s at a 0.5 s period").isBetween(6, 9);
				String owner = window.get(window.size() - 1).node();
				boolean firstOwns = first.outputLines()
					.stream()
					.anyMatch((line) -> line.contains("Polling topic failover"));
				GatewayProcess polling = firstOwns ? first : second;
				GatewayProcess survivor = firstOwns ? second : first;
				assertThat(survivor.outputLines()).noneMatch((line) -> line.contains("Polling topic failover"));

				List<ServerSentEvent<String>> events = new CopyOnWriteArrayList<>();
				Disposable stream = new Sse(survivor.baseUrl())
					.stream("/api/v1/stream/failover?mode=snapshot-patch", null)
					.subscribe(events::add);
				try {
					await().atMost(Duration.ofSeconds(30)).until(() -> events.size() >= 3);
					long killedAt = System.currentTimeMillis();
					polling.kill();
					await().atMost(Duration.ofSeconds(45))
						.pollInterval(Duration.ofMillis(100))
						.until(() -> requestsSince(sourceClient, killedAt).stream()
							.anyMatch((request) -> !request.node().equals(owner)));
					Request takeover = requestsSince(sourceClient, killedAt).stream()
						.filter((request) -> !request.node().equals(owner))
						.findFirst()
						.get();
					long failoverMillis = takeover.at() - killedAt;
					System.out.println("Poller failover after SIGKILL: " + failoverMillis + " ms");
					assertThat(Duration.ofMillis(failoverMillis)).isLessThan(Duration.ofSeconds(30));

					int before = events.size();
					await().atMost(Duration.ofSeconds(30)).until(() -> events.size() >= before + 3);
					// The new poller continued the document: patches only, no new
					// snapshot.
					assertThat(events.subList(1, events.size()))
						.allSatisfy((event) -> assertThat(event.event()).isEqualTo("patch"));
					JsonValue document = parse(events.get(0).data());
					for (ServerSentEvent<String> event : events.subList(1, events.size())) {
						document = Json.createPatch(parse(event.data()).asJsonArray())
							.apply((jakarta.json.JsonStructure) document);
					}
					long version = ((JsonObject) document).getJsonNumber("version").longValue();
					String served = sourceClient.get()
						.uri("/documents/failover/versions/" + version)
						.retrieve()
						.bodyToMono(String.class)
						.block(Duration.ofSeconds(10));
					assertThat(document).isEqualTo(parse(served));
				}
				finally {
					stream.dispose();
				}
			}
		}
	}

	private static List<Request> requestsSince(WebClient sourceClient, long since) {
		String json = sourceClient.get()
			.uri("/documents/failover/requests")
			.retrieve()
			.bodyToMono(String.class)
			.block(Duration.ofSeconds(10));
		List<Request> requests = new ArrayList<>();
		for (JsonValue value : parse(json).asJsonArray()) {
			JsonObject request = value.asJsonObject();
			long at = request.getJsonNumber("at").longValue();
			Matcher node = NODE.matcher(request.getString("userAgent"));
			if (at >= since && node.find()) {
				requests.add(new Request(at, node.group(1)));
			}
		}
		return requests;
	}

	private static JsonValue parse(String json) {
		try (JsonReader reader = Json.createReader(new StringReader(json))) {
			return reader.readValue();
		}
	}

	private record Request(long at, String node) {
	}

}
