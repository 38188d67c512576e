package dev.streamgate.poller;

import java.io.StringReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * Three gateway processes share the polling of a topic through the lease group: exactly
 * one polls it; when that one is killed (SIGKILL) another takes over within the lease
 * session, and when that one stops (SIGTERM) the last takes over within two seconds, each
 * continuing the document from its checkpoint so that subscribers see patches, not a
 * reset.
 */
class PollerFailoverIntegrationTests {

	private static final Pattern NODE = Pattern.compile("\\(node ([0-9a-f]+)\\)");

	private static final Duration SESSION = Duration.ofSeconds(6);

	@Test
	void exactlyOneNodePollsAnotherTakesOverWithinTheSessionAfterAKillAndWithinTwoSecondsOfAShutdown(
			@TempDir Path dir) {
		try (MockSourceApi source = MockSourceApi.start(MockSourceApi.Settings.forTests())) {
			WebClient sourceClient = WebClient.create("http://127.0.0.1:" + source.port());
			List<String> args = new ArrayList<>(List.of(GatewayKafka.arguments(TestKafka.uniquePrefix())));
			args.remove("--server.port=0");
			args.add("--streamgate.egress.allowed-cidrs=127.0.0.1/32");
			args.add("--streamgate.embedded-kafka.data-dir=" + dir.resolve("unused"));
			args.add("--streamgate.kafka.lease-session-timeout=" + SESSION.toMillis() + "ms");
			List<GatewayProcess> nodes = new ArrayList<>();
			try {
				for (int i = 0; i < 3; i++) {
					nodes.add(GatewayProcess.startReady(dir.resolve("node" + i + ".log"), args.toArray(String[]::new)));
				}
				nodes.get(0)
					.client()
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
				GatewayProcess polling = polling(nodes);
				nodes.remove(polling);
				// A subscriber on each survivor: the one on the last node sees both
				// handovers.
				Map<GatewayProcess, List<ServerSentEvent<String>>> received = new HashMap<>();
				List<Disposable> streams = new ArrayList<>();
				for (GatewayProcess node : nodes) {
					List<ServerSentEvent<String>> events = new CopyOnWriteArrayList<>();
					received.put(node, events);
					streams.add(new Sse(node.baseUrl()).stream("/api/v1/stream/failover?mode=snapshot-patch", null)
						.subscribe(events::add));
				}
				try {
					await().atMost(Duration.ofSeconds(30))
						.until(() -> received.values().stream().allMatch((events) -> events.size() >= 3));
					String owner = window.get(window.size() - 1).node();
					long killedAt = System.currentTimeMillis();
					polling.kill();
					Request takeover = takeover(sourceClient, owner, killedAt);
					long failoverMillis = takeover.at() - killedAt;
					System.out.println("Poller failover after SIGKILL: " + failoverMillis + " ms (session timeout "
							+ SESSION.toMillis() + " ms)");
					// The session's end, the rebalance, one polling period.
					assertThat(Duration.ofMillis(failoverMillis)).isLessThan(SESSION.plusSeconds(2));

					// A clean shutdown: the poller leaves the lease group first thing.
					await().atMost(Duration.ofSeconds(30)).until(() -> polling(nodes) != null);
					GatewayProcess stopping = polling(nodes);
					nodes.remove(stopping);
					long stoppedAt = System.currentTimeMillis();
					Thread stopper = new Thread(stopping::stop);
					stopper.start();
					Request afterShutdown = takeover(sourceClient, takeover.node(), stoppedAt);
					long handoverMillis = afterShutdown.at() - stoppedAt;
					System.out.println("Poller handover after SIGTERM: " + handoverMillis + " ms");
					assertThat(Duration.ofMillis(handoverMillis)).isLessThan(Duration.ofSeconds(2));
					stopper.join(30_000);

					List<ServerSentEvent<String>> events = received.get(nodes.get(0));
					int before = events.size();
					await().atMost(Duration.ofSeconds(30)).until(() -> events.size() >= before + 3);
					// Each new poller continued the document: patches only, no new
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
					streams.forEach(Disposable::dispose);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				nodes.forEach(GatewayProcess::close);
			}
		}
	}

	/**
	 * The node whose log says it polls the topic now (the lease may have moved as nodes
	 * joined), or null.
	 */
	private static GatewayProcess polling(List<GatewayProcess> nodes) {
		List<GatewayProcess> polling = nodes.stream()
			.filter((node) -> node.outputLines()
				.stream()
				.filter((line) -> line.contains("olling topic failover"))
				.reduce((first, second) -> second)
				.filter((last) -> last.contains("Polling topic failover"))
				.isPresent())
			.toList();
		assertThat(polling).hasSizeLessThanOrEqualTo(1);
		return polling.isEmpty() ? null : polling.get(0);
	}

	/** The first poll after a time from another node than the one that polled. */
	private static Request takeover(WebClient sourceClient, String owner, long since) {
		await().atMost(Duration.ofSeconds(45))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> requestsSince(sourceClient, since).stream()
				.anyMatch((request) -> !request.node().equals(owner)));
		return requestsSince(sourceClient, since).stream()
			.filter((request) -> !request.node().equals(owner))
			.findFirst()
			.get();
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
