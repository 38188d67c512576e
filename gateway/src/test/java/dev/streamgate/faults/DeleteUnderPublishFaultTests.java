package dev.streamgate.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import dev.streamgate.support.BrokerProcess;
import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.Sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node-wide freeze found by outside probing, in a loop: publish to topic {@code wd}
 * every 20 ms; create it, register a webhook on it 0.2 s later (two cycles in three),
 * open a stream on it (every other cycle), delete it. After every cycle an event
 * published to another topic must reach that topic's open stream within seconds: one
 * topic gone under its publisher never stalls the others (it stalled every SSE event and
 * webhook of the node for minutes, 4 times in 5).
 */
@Tag("faults")
class DeleteUnderPublishFaultTests {

	private static final Duration CANARY_WITHIN = Duration.ofSeconds(10);

	@Test
	void deletingATopicUnderPublishNeverStallsTheOtherTopics(@TempDir Path dir) throws Exception {
		int cycles = Accounts.full() ? 300 : 25;
		DisposableServer receiver = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.handle((request, response) -> request.receive().then(response.status(204).send()))
			.bindNow();
		try (BrokerProcess broker = BrokerProcess.start(dir.resolve("kafka"), dir.resolve("broker.log"));
				GatewayProcess gateway = GatewayProcess.startReady(dir.resolve("gateway.log"),
						GatewayCrashFaultTests.withBroker(new String[] { "--streamgate.security.enabled=false",
								"--streamgate.egress.allowed-cidrs=127.0.0.1/32" }, broker))) {
			String url = gateway.baseUrl();
			WebClient client = WebClient.create(url);
			Faults.post(url, "/api/v1/topics", "{\"id\":\"canary\"}");
			List<ServerSentEvent<String>> canary = new CopyOnWriteArrayList<>();
			Disposable canaryStream = new Sse(url).stream("/api/v1/stream/canary", null).subscribe(canary::add);
			Disposable publisher = Flux.interval(Duration.ofMillis(20))
				.onBackpressureDrop()
				.concatMap((tick) -> status(client.post()
					.uri("/api/v1/publish/wd")
					.contentType(MediaType.APPLICATION_JSON)
					.bodyValue("{\"n\":" + tick + "}")))
				.subscribe();
			List<Long> canaryMillis = new ArrayList<>();
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> publishCanary(client, -1) && !canary.isEmpty());
				for (int cycle = 0; cycle < cycles; cycle++) {
					createWd(client);
					List<Disposable> wdStreams = new ArrayList<>();
					if (cycle % 2 == 0) {
						wdStreams.add(new Sse(url).all("/api/v1/stream/wd", null).subscribe((e) -> {
						}, (ex) -> {
						}));
					}
					if (cycle % 3 != 2) {
						Thread.sleep(200);
						status(client.post()
							.uri("/api/v1/topics/wd/webhooks")
							.contentType(MediaType.APPLICATION_JSON)
							.bodyValue("{\"url\":\"http://127.0.0.1:" + receiver.port() + "/hook\"}")).block();
					}
					Thread.sleep(cycle % 5 * 60L);
					assertThat(status(client.delete().uri("/api/v1/topics/wd")).block()).isEqualTo(204);
					wdStreams.forEach(Disposable::dispose);
					int before = canary.size();
					long started = System.nanoTime();
					assertThat(publishCanary(client, cycle)).isTrue();
					int c = cycle;
					await("canary event after cycle " + c).atMost(CANARY_WITHIN).until(() -> canary.size() > before);
					canaryMillis.add((System.nanoTime() - started) / 1_000_000);
				}
			}
			finally {
				publisher.dispose();
				canaryStream.dispose();
			}
			assertThat(gateway.readinessStatus()).isEqualTo(200);
			System.out.printf(
					"%d create/webhook/stream/delete cycles under publish: canary latency max %d ms, "
							+ "median %d ms%n",
					cycles, canaryMillis.stream().mapToLong(Long::longValue).max().orElse(-1),
					canaryMillis.stream().sorted().toList().get(canaryMillis.size() / 2));
		}
		finally {
			receiver.disposeNow();
		}
	}

	/**
	 * Creates wd again; the events of the deleted one may still be on their way out of
	 * Kafka.
	 */
	private static void createWd(WebClient client) {
		await().atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(250))
			.until(() -> status(client.post()
				.uri("/api/v1/topics")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"id\":\"wd\"}")).block() == 201);
	}

	private static boolean publishCanary(WebClient client, int cycle) {
		Integer status = status(client.post()
			.uri("/api/v1/publish/canary")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"cycle\":" + cycle + "}")).block();
		return status != null && status == 202;
	}

	private static Mono<Integer> status(WebClient.RequestHeadersSpec<?> request) {
		return request.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value()))
			.timeout(Duration.ofSeconds(30))
			.onErrorReturn(-1);
	}

}
