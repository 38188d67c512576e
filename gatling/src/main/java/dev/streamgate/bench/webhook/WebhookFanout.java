package dev.streamgate.bench.webhook;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.handler.codec.http.HttpHeaderNames;
import org.HdrHistogram.Histogram;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

import dev.streamgate.bench.sink.WebhookSink;

/**
 * Webhook fan-out benchmark against a running gateway: TOPICS event topics, WEBHOOKS
 * webhooks spread over them, all pointing at one local sink; one SIZE-byte event per
 * topic every PERIOD, published over HTTP with its send time stamped in; the sink checks
 * each signature and records publish-to-receive latency.
 * <p>
 * Settings (environment): GATEWAY (http://127.0.0.1:8080), TOKEN (a bearer token, when
 * security is on), WEBHOOKS (750), TOPICS (1), SIZE (20480), PERIOD (PT1S), DURATION
 * (PT60S), WARMUP (PT10S), DOWN (0: how many endpoints answer 503 throughout; latency and
 * throughput count the healthy ones). Prints one JSON line of results.
 */
public final class WebhookFanout {

	private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

	private WebhookFanout() {
	}

	public static void main(String[] args) throws InterruptedException {
		String gateway = setting("GATEWAY", "http://127.0.0.1:8080");
		String token = setting("TOKEN", "");
		int webhooks = Integer.parseInt(setting("WEBHOOKS", "750"));
		int topics = Integer.parseInt(setting("TOPICS", "1"));
		int size = Integer.parseInt(setting("SIZE", "20480"));
		Duration period = Duration.parse(setting("PERIOD", "PT1S"));
		Duration duration = Duration.parse(setting("DURATION", "PT60S"));
		Duration warmup = Duration.parse(setting("WARMUP", "PT10S"));
		int down = Integer.parseInt(setting("DOWN", "0"));
		HttpClient http = HttpClient.create(ConnectionProvider.create("bench", 64))
			.baseUrl(gateway)
			.headers((headers) -> {
				headers.set(HttpHeaderNames.CONTENT_TYPE, "application/json");
				if (!token.isEmpty()) {
					headers.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + token);
				}
			});
		try (WebhookSink sink = WebhookSink.startForBenchmarks("127.0.0.1", 0)) {
			String run = Long.toString(System.currentTimeMillis() % 100000, 36);
			for (int t = 0; t < topics; t++) {
				call(http, "/api/v1/topics", "{\"id\":\"wh-" + run + "-" + t
						+ "\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}");
			}
			Flux.range(0, webhooks).flatMap((w) -> {
				sink.endpoint("w" + w, SECRET).behave((w < down) ? "status:503" : "ok");
				String topic = "wh-" + run + "-" + (w % topics);
				return Mono.fromRunnable(() -> call(http, "/api/v1/topics/" + topic + "/webhooks",
						"{\"url\":\"" + sink.url("w" + w) + "\",\"secret\":\"" + SECRET + "\"}"));
			}, 8).blockLast(Duration.ofMinutes(5));
			AtomicLong published = new AtomicLong();
			AtomicLong failedPublishes = new AtomicLong();
			String padding = "x".repeat(Math.max(0, size - 60));
			Disposable publishing = Flux.interval(period)
				.onBackpressureDrop()
				.flatMap((tick) -> Flux.range(0, topics)
					.flatMap((t) -> http.post()
						.uri("/api/v1/publish/wh-" + run + "-" + t)
						.send((request, out) -> out.sendString(Mono.fromSupplier(() -> "{\"sentAt\":"
								+ System.currentTimeMillis() + ",\"seq\":" + tick + ",\"pad\":\"" + padding + "\"}")))
						.responseSingle((response, body) -> body.then(Mono.just(response.status().code())))
						.doOnNext((status) -> (status == 202 ? published : failedPublishes).incrementAndGet())
						.onErrorResume((ex) -> {
							failedPublishes.incrementAndGet();
							return Mono.empty();
						})))
				.subscribe();
			Thread.sleep(warmup.toMillis());
			sink.latencies();
			long receivedBefore = received(sink, webhooks);
			long publishedBefore = published.get();
			long started = System.nanoTime();
			Thread.sleep(duration.toMillis());
			Histogram latencies = sink.latencies();
			double seconds = (System.nanoTime() - started) / 1e9;
			long delivered = received(sink, webhooks) - receivedBefore;
			long publishedInWindow = published.get() - publishedBefore;
			publishing.dispose();
			long invalid = 0;
			for (int w = 0; w < webhooks; w++) {
				invalid += sink.endpoint("w" + w).received().stream().filter((r) -> !r.signatureValid()).count();
			}
			System.out.println(String.format(Locale.ROOT,
					"{\"webhooks\":%d,\"topics\":%d,\"size\":%d,\"period\":\"%s\",\"seconds\":%.1f,\"published\":%d,"
							+ "\"publishFailures\":%d,\"down\":%d,\"delivered\":%d,\"eventsPerSecond\":%.1f,"
							+ "\"p50Ms\":%.1f,\"p99Ms\":%.1f,\"maxMs\":%.1f,\"badSignatures\":%d}",
					webhooks, topics, size, period, seconds, publishedInWindow, failedPublishes.get(), down, delivered,
					delivered / seconds, latencies.getValueAtPercentile(50) / 1000.0,
					latencies.getValueAtPercentile(99) / 1000.0, latencies.getMaxValue() / 1000.0, invalid));
			for (int t = 0; t < topics; t++) {
				http.delete().uri("/api/v1/topics/wh-" + run + "-" + t).response().block(Duration.ofSeconds(30));
			}
		}
	}

	private static long received(WebhookSink sink, int webhooks) {
		long total = 0;
		for (int w = 0; w < webhooks; w++) {
			total += sink.endpoint("w" + w).received().stream().filter(WebhookSink.Received::accepted).count();
		}
		return total;
	}

	private static void call(HttpClient http, String uri, String json) {
		int status = http.post()
			.uri(uri)
			.send((request, out) -> out.sendString(Mono.just(json)))
			.responseSingle((response, body) -> body.then(Mono.just(response.status().code())))
			.block(Duration.ofSeconds(30));
		if (status / 100 != 2) {
			throw new IllegalStateException("POST " + uri + " answered " + status);
		}
	}

	private static String setting(String name, String fallback) {
		String value = System.getenv(name);
		return (value != null && !value.isBlank()) ? value : fallback;
	}

}
