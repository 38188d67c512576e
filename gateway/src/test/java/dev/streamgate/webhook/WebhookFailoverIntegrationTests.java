package dev.streamgate.webhook;

import java.io.StringReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.json.Json;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import org.awaitility.core.ConditionTimeoutException;
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
 * <p>
 * Which node owns a webhook follows from its (random) id, so the eight webhooks all land
 * on one node about once in 128 runs: the test then registers more until both nodes
 * deliver, rather than failing on a kill that would move nothing.
 */
class WebhookFailoverIntegrationTests {

	private static final Pattern NODE = Pattern.compile("\\(node ([0-9a-f]+)\\)");

	private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

	/** Registered at first; more are added while only one node owns any. */
	private static final int FIRST_WEBHOOKS = 8;

	/** How long the group gets to settle before one more webhook is registered. */
	private static final Duration SETTLE = Duration.ofSeconds(15);

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
				// Each webhook by its endpoint's name, with the first event published
				// after it was registered: it starts at the topic's end then.
				Map<String, Integer> webhooks = new LinkedHashMap<>();
				AtomicInteger next = new AtomicInteger();
				for (int i = 0; i < FIRST_WEBHOOKS; i++) {
					register(api, sink, webhooks, next);
				}
				NavigableSet<Integer> acknowledged = new ConcurrentSkipListSet<>();
				AtomicInteger refused = new AtomicInteger();
				// Published through the node that stays up, every 50 ms.
				Disposable publishing = Flux.interval(Duration.ofMillis(50)).onBackpressureDrop().concatMap((tick) -> {
					int n = next.getAndIncrement();
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
					long settleBy = System.currentTimeMillis() + Duration.ofSeconds(90).toMillis();
					while (!settled(sink, webhooks, 2, SETTLE)) {
						if (System.currentTimeMillis() > settleBy) {
							throw new AssertionError("Not settled on two nodes: owners "
									+ ownersSince(sink, webhooks, System.currentTimeMillis() - 2000) + "\n"
									+ leaseLines(first, second));
						}
						// Still one node: if the group has settled, every webhook hashed
						// to
						// its partitions, and one more may land on the other.
						register(api, sink, webhooks, next);
					}
					Map<String, String> owners = ownersSince(sink, webhooks, System.currentTimeMillis() - 2000);
					assertThat(owners).hasSize(webhooks.size());
					assertThat(new LinkedHashSet<>(owners.values())).hasSize(2);
					long killedAt = System.currentTimeMillis();
					second.kill();
					// The survivor takes the killed node's webhooks once its session
					// times out.
					if (!settled(sink, webhooks, 1, Duration.ofSeconds(60))) {
						throw new AssertionError("The survivor did not take over: owners "
								+ ownersSince(sink, webhooks, System.currentTimeMillis() - 1500) + "\n"
								+ leaseLines(first, second));
					}
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
					for (Map.Entry<String, Integer> webhook : webhooks.entrySet()) {
						if (!accepted(sink, webhook.getKey()).containsAll(acknowledged.tailSet(webhook.getValue()))) {
							return false;
						}
					}
					return true;
				});
				int duplicates = 0;
				for (String webhook : webhooks.keySet()) {
					List<Received> received = sink.endpoint(webhook)
						.received()
						.stream()
						.filter(Received::accepted)
						.toList();
					assertThat(received).allSatisfy((r) -> assertThat(r.signatureValid()).isTrue());
					// In order: each event first arrives after every earlier one.
					List<Integer> firstArrivals = new ArrayList<>(new LinkedHashSet<>(
							received.stream().map(WebhookFailoverIntegrationTests::dataN).toList()));
					assertThat(firstArrivals).as("%s in order", webhook).isSorted();
					// A duplicate carries the webhook-id of the first delivery.
					Map<Integer, Set<String>> ids = new TreeMap<>();
					received
						.forEach((r) -> ids.computeIfAbsent(dataN(r), (n) -> new LinkedHashSet<>()).add(r.webhookId()));
					assertThat(ids.values()).allSatisfy((set) -> assertThat(set).hasSize(1));
					duplicates += received.size() - firstArrivals.size();
				}
				System.out.println("Webhook failover: " + published + " events acknowledged, each delivered to all "
						+ webhooks.size() + " webhooks; " + duplicates + " duplicate deliveries; " + refused.get()
						+ " publishes refused");
			}
		}
	}

	private static Set<Integer> accepted(WebhookSink sink, String endpoint) {
		Set<Integer> numbers = new java.util.HashSet<>();
		sink.endpoint(endpoint).received().stream().filter(Received::accepted).forEach((r) -> numbers.add(dataN(r)));
		return numbers;
	}

	private static void register(WebClient api, WebhookSink sink, Map<String, Integer> webhooks, AtomicInteger next) {
		String name = "w" + webhooks.size();
		sink.endpoint(name, SECRET);
		post(api, "/api/v1/topics/steady/webhooks",
				"{\"url\":\"" + sink.url(name) + "\",\"secret\":\"" + SECRET + "\"}");
		webhooks.put(name, next.get());
	}

	/**
	 * Waits until every webhook was delivered to in the last two seconds, by as many
	 * nodes as expected.
	 * @return false when that did not happen in time
	 */
	private static boolean settled(WebhookSink sink, Map<String, Integer> webhooks, int nodes, Duration within) {
		try {
			await().atMost(within).pollInterval(Duration.ofMillis(500)).until(() -> {
				Map<String, String> owners = ownersSince(sink, webhooks, System.currentTimeMillis() - 2000);
				return owners.size() == webhooks.size() && new LinkedHashSet<>(owners.values()).size() == nodes;
			});
			return true;
		}
		catch (ConditionTimeoutException ex) {
			return false;
		}
	}

	/** What each node's log says about its share of the webhook group. */
	private static String leaseLines(GatewayProcess... gateways) {
		StringBuilder lines = new StringBuilder();
		for (GatewayProcess gateway : gateways) {
			lines.append(gateway.baseUrl()).append(":\n");
			gateway.outputLines()
				.stream()
				.filter((line) -> line.contains("Lease group webhooks"))
				.forEach((line) -> lines.append("  ").append(line).append('\n'));
		}
		return lines.toString();
	}

	/** Which node delivered to each endpoint lately. */
	private static Map<String, String> ownersSince(WebhookSink sink, Map<String, Integer> webhooks, long since) {
		Map<String, String> owners = new TreeMap<>();
		for (String name : webhooks.keySet()) {
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
