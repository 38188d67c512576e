package dev.streamgate.webhook;

import java.io.StringReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.json.Json;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.streamgate.bench.sink.WebhookSink;
import dev.streamgate.bench.sink.WebhookSink.Received;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two gateway processes share a topic's webhooks through the lease group. Under a steady
 * publish load one is killed with SIGKILL mid-delivery: its webhooks move to the
 * survivor, which resumes from the committed cursors, and every acknowledged event
 * reaches every webhook, in order, duplicates carrying the same webhook-id.
 */
class WebhookFailoverIntegrationTests {

	private static final Pattern NODE = Pattern.compile("\\(node ([0-9a-f]+)\\)");

	private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

	private static final int WEBHOOKS = 8;

	private static final int MIN_EVENTS = 200;

	@Test
	void killingANodeMidDeliveryLosesNoEvent(@TempDir Path dir) {
		try (WebhookSink sink = WebhookSink.start("127.0.0.1", 0)) {
			List<String> args = new ArrayList<>(List.of(GatewayKafka.arguments(TestKafka.uniquePrefix())));
			args.remove("--server.port=0");
			args.add("--streamgate.egress.allowed-cidrs=127.0.0.1/32");
			args.add("--streamgate.webhook.retry-schedule=500ms,500ms,500ms,500ms,500ms,500ms,500ms,500ms");
			args.add("--streamgate.embedded-kafka.data-dir=" + dir.resolve("unused"));
			try (GatewayProcess first = GatewayProcess.startReady(dir.resolve("first.log"),
					args.toArray(String[]::new));
					GatewayProcess second = GatewayProcess.startReady(dir.resolve("second.log"),
							args.toArray(String[]::new))) {
				WebClient api = WebClient.create(first.baseUrl());
				post(api, "/api/v1/topics",
						"{\"id\":\"steady\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}");
				for (int i = 0; i < WEBHOOKS; i++) {
					sink.endpoint("w" + i, SECRET);
					post(api, "/api/v1/topics/steady/webhooks",
							"{\"url\":\"" + sink.url("w" + i) + "\",\"secret\":\"" + SECRET + "\"}");
				}
				Set<Integer> acknowledged = new ConcurrentSkipListSet<>();
				AtomicInteger refused = new AtomicInteger();
				int[] next = { 0 };
				// Published through the node that stays up, every 50 ms.
				Disposable publishing = Flux.interval(Duration.ofMillis(50)).onBackpressureDrop().concatMap((tick) -> {
					int n = next[0]++;
					return api.post()
						.uri("/api/v1/publish/steady")
						.contentType(MediaType.APPLICATION_JSON)
						.bodyValue("{\"n\":" + n + "}")
						.retrieve()
						.toBodilessEntity()
						.doOnNext((ok) -> acknowledged.add(n))
						.onErrorResume((ex) -> {
							refused.incrementAndGet();
							return Mono.empty();
						});
				}).subscribe();
				try {
					// Settled: both nodes deliver, each to its own share of the webhooks,
					// and every webhook has an owner (while the second node joins, the
					// webhooks that move pause for a moment).
					await().atMost(Duration.ofSeconds(60))
						.pollInterval(Duration.ofMillis(500))
						.until(() -> nodesDeliveringSince(sink, System.currentTimeMillis() - 2000).size() == 2
								&& ownersSince(sink, System.currentTimeMillis() - 2000).size() == WEBHOOKS);
					Map<String, String> owners = ownersSince(sink, System.currentTimeMillis() - 2000);
					assertThat(owners).hasSize(WEBHOOKS);
					assertThat(new LinkedHashSet<>(owners.values())).hasSize(2);
					long killedAt = System.currentTimeMillis();
					second.kill();
					// The survivor takes the killed node's webhooks once its session
					// times out.
					await().atMost(Duration.ofSeconds(60))
						.pollInterval(Duration.ofMillis(500))
						.until(() -> ownersSince(sink, System.currentTimeMillis() - 1500).size() == WEBHOOKS
								&& nodesDeliveringSince(sink, System.currentTimeMillis() - 1500).size() == 1);
					long movedAt = System.currentTimeMillis();
					System.out.println("Webhooks moved after SIGKILL within " + (movedAt - killedAt) + " ms");
					// Keep publishing through the survivor after the move until enough
					// events went through: how soon the webhooks move depends on when the
					// killed node's session expires, which must not thin out the load.
					await().atMost(Duration.ofSeconds(60))
						.pollInterval(Duration.ofMillis(200))
						.until(() -> System.currentTimeMillis() - movedAt >= 2000 && acknowledged.size() > MIN_EVENTS);
				}
				finally {
					publishing.dispose();
				}
				int published = acknowledged.size();
				await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
					for (int i = 0; i < WEBHOOKS; i++) {
						if (!accepted(sink, "w" + i).containsAll(acknowledged)) {
							return false;
						}
					}
					return true;
				});
				int duplicates = 0;
				for (int i = 0; i < WEBHOOKS; i++) {
					List<Received> received = sink.endpoint("w" + i)
						.received()
						.stream()
						.filter(Received::accepted)
						.toList();
					assertThat(received).allSatisfy((r) -> assertThat(r.signatureValid()).isTrue());
					// In order: each event first arrives after every earlier one.
					List<Integer> firstArrivals = new ArrayList<>(new LinkedHashSet<>(
							received.stream().map(WebhookFailoverIntegrationTests::dataN).toList()));
					assertThat(firstArrivals).as("w%d in order", i).isSorted();
					// A duplicate carries the webhook-id of the first delivery.
					Map<Integer, Set<String>> ids = new TreeMap<>();
					received
						.forEach((r) -> ids.computeIfAbsent(dataN(r), (n) -> new LinkedHashSet<>()).add(r.webhookId()));
					assertThat(ids.values()).allSatisfy((set) -> assertThat(set).hasSize(1));
					duplicates += received.size() - firstArrivals.size();
				}
				System.out.println("Webhook failover: " + published + " events acknowledged, each delivered to all "
						+ WEBHOOKS + " webhooks; " + duplicates + " duplicate deliveries; " + refused.get()
						+ " publishes refused");
			}
		}
	}

	private static Set<Integer> accepted(WebhookSink sink, String endpoint) {
		Set<Integer> numbers = new java.util.HashSet<>();
		sink.endpoint(endpoint).received().stream().filter(Received::accepted).forEach((r) -> numbers.add(dataN(r)));
		return numbers;
	}

	/** Which node delivered to each endpoint lately. */
	private static Map<String, String> ownersSince(WebhookSink sink, long since) {
		Map<String, String> owners = new TreeMap<>();
		for (int i = 0; i < WEBHOOKS; i++) {
			String name = "w" + i;
			sink.endpoint(name)
				.received()
				.stream()
				.filter((r) -> r.receivedAt() >= since)
				.reduce((a, b) -> b)
				.map((r) -> NODE.matcher(r.headers().get("user-agent")))
				.filter(Matcher::find)
				.ifPresent((node) -> owners.put(name, node.group(1)));
		}
		return owners;
	}

	private static Set<String> nodesDeliveringSince(WebhookSink sink, long since) {
		return new LinkedHashSet<>(ownersSince(sink, since).values());
	}

	private static void post(WebClient api, String uri, String json) {
		api.post()
			.uri(uri)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(json)
			.retrieve()
			.toBodilessEntity()
			.block(Duration.ofSeconds(30));
	}

	private static int dataN(Received received) {
		try (JsonReader reader = Json.createReader(new StringReader(received.body()))) {
			JsonValue envelope = reader.readValue();
			return envelope.asJsonObject().getJsonObject("data").getInt("n");
		}
	}

}
