package dev.streamgate.bench.simulation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAccumulator;
import java.util.concurrent.atomic.LongAdder;

import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;

import dev.streamgate.bench.sink.WebhookSink;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

/**
 * Webhook subscribers of topics fed by the HTTP ingest: the reference's second table.
 * <p>
 * {@code webhooks} webhooks, spread evenly over {@code topics} event topics, all point at
 * one local sink (Reactor Netty, {@code gatling/}) that checks every signature with the
 * official Standard Webhooks library. Gatling publishes one event of {@code payload}
 * bytes to each topic every {@code period} (an open model: {@code topics / period}
 * requests a second, the topics taken in turn), stamping its send time ({@code sentAt},
 * epoch ms) into the body; the sink subtracts it on receipt. Latency and throughput count
 * the 2xx deliveries with a valid signature during the measured window, which opens after
 * {@code ramp} and lasts {@code duration}.
 * <p>
 * Knobs (system property or environment variable): {@code row} ({@code webhook-1} ..
 * {@code webhook-13}; sets webhooks, topics, payload and period and records the result in
 * docs/benchmarks.md), {@code webhooks} (50), {@code topics} (1), {@code payload} (20KB),
 * {@code period} (1s), {@code ramp} (10s), {@code duration} (60s), {@code via},
 * {@code trace-slowest} (false; true prints every delivery of the slowest webhook: sent
 * and received time, webhook-id), and those of {@link BenchEnvironment}. The three
 * slowest webhooks are always printed ({@code SLOWEST} lines): a late start and a stall
 * read the same in a percentile. From the first publish to the end, the gateway's
 * {@code streamgate.ingest.in-flight} gauge is read alone ({@code /actuator/metrics})
 * every 250 ms: the most seen is {@code peakInFlightMB} (how close the ingest came to its
 * bound), and {@code refusedPublishes} is the gateway's count of 503 {@code overloaded}
 * answers. {@code failedPublishes} counts the publishes that got no 202 (Gatling's KOs: a
 * refusal, NGINX's 500 or 504, a closed connection, no answer in 60 s); the reference
 * table's row says how many when there were any. {@code failedAttempts} counts the
 * delivery attempts that got no 2xx (a timeout, an error): each sends its webhook into
 * the retry schedule (5 s, then 5 min), so a webhook minutes behind was waiting to retry
 * rather than slow.
 */
public class WebhookFanout extends Simulation {

	private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

	private final ReferenceTable.Row row = ReferenceTable.chosen("webhook");

	private final int webhooks = Knobs.integer("webhooks", (this.row != null) ? this.row.users() : 50);

	private final int topics = Knobs.integer("topics", (this.row != null) ? this.row.topics() : 1);

	private final int payload = Knobs.bytes("payload", (this.row != null) ? this.row.payloadKb() * 1024 : 20 * 1024);

	private final Duration period = Knobs.duration("period",
			(this.row != null) ? this.row.period() : Duration.ofSeconds(1));

	private final Duration ramp = Knobs.duration("ramp", Duration.ofSeconds(10));

	private final Duration duration = Knobs.duration("duration", Duration.ofSeconds(60));

	private final BenchEnvironment environment = new BenchEnvironment();

	private final AtomicLong published = new AtomicLong();

	/**
	 * Publishes that got no 202: an error status (NGINX's 500 and 504 included), a closed
	 * connection or no answer within Gatling's 60 s.
	 */
	private final LongAdder failedPublishes = new LongAdder();

	private final String padding = "x".repeat(Math.max(0, this.payload - 64));

	private WebhookSink sink;

	private Measurement measurement;

	private final ScheduledExecutorService inFlightSampler = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "bench-in-flight");
		thread.setDaemon(true);
		return thread;
	});

	/** The most bytes the gateway held in flight, as sampled. */
	private final DoubleAccumulator peakInFlight = new DoubleAccumulator(Math::max, 0);

	/** When publishing starts (epoch ms). */
	private volatile long startedAt;

	{
		HttpProtocolBuilder protocol = http.baseUrl(this.environment.clientUrl())
			.contentTypeHeader("application/json")
			.shareConnections();
		ScenarioBuilder publishers = scenario("publishers")
			.exec(http("publish")
				.post((session) -> "/api/v1/publish/wh-" + (this.published.getAndIncrement() % this.topics))
				.body(StringBody((session) -> "{\"sentAt\":" + System.currentTimeMillis() + ",\"pad\":\"" + this.padding
						+ "\"}"))
				.check(status().is(202)))
			.exec((session) -> {
				if (session.isFailed()) {
					this.failedPublishes.increment();
				}
				return session;
			});
		double perSecond = this.topics * 1000.0 / this.period.toMillis();
		Duration publishing = this.ramp.plus(this.duration).plusSeconds(2);
		setUp(publishers.injectOpen(constantUsersPerSec(perSecond).during(publishing))).protocols(protocol)
			.maxDuration(publishing.plusSeconds(60))
			.assertions(global().failedRequests().count().is(0L));
	}

	@Override
	public void before() {
		this.sink = WebhookSink.startForBenchmarks("127.0.0.1", 0);
		this.environment.start();
		for (int t = 0; t < this.topics; t++) {
			this.environment.admin("POST", "/api/v1/topics",
					"{\"id\":\"wh-" + t + "\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}");
		}
		for (int w = 0; w < this.webhooks; w++) {
			this.sink.endpoint("w" + w, SECRET);
			this.environment.admin("POST", "/api/v1/topics/wh-" + (w % this.topics) + "/webhooks",
					"{\"url\":\"" + this.sink.url("w" + w) + "\",\"secret\":\"" + SECRET + "\"}");
		}
		this.measurement = new Measurement(this.environment.gatewayPid());
		this.measurement.schedule(this.ramp, this.duration);
		BenchEnvironment.sleep(Duration.ofSeconds(1));
		this.startedAt = System.currentTimeMillis();
		this.inFlightSampler.scheduleWithFixedDelay(() -> {
			double held = this.environment.gauge("streamgate.ingest.in-flight");
			if (Double.isNaN(held)) {
				// A gateway of one's own (gateway.url) may not expose /actuator/metrics.
				held = this.environment.metric("streamgate_ingest_in_flight_bytes");
			}
			if (!Double.isNaN(held)) {
				this.peakInFlight.accumulate(held);
			}
		}, 0, 250, TimeUnit.MILLISECONDS);
	}

	/**
	 * Prints the webhooks with the largest latencies and when they got their first
	 * delivery: a late start and a slow stretch of one endpoint read the same in a
	 * percentile.
	 */
	private void reportSlowest(int count) {
		List<Slowest> all = new ArrayList<>();
		for (int w = 0; w < this.webhooks; w++) {
			Slowest slowest = new Slowest("w" + w, 0, Long.MAX_VALUE, -1, 0);
			for (WebhookSink.Received received : this.sink.endpoint("w" + w).received()) {
				if (received.sentAt() >= 0) {
					slowest = slowest.with(received);
				}
			}
			all.add(slowest);
		}
		all.sort(Comparator.comparingLong(Slowest::maxMs).reversed());
		all.stream()
			.limit(count)
			.forEach((slowest) -> System.out.printf(
					"SLOWEST webhook %s: %d deliveries, first at +%.1f s, max %d ms for the event sent at +%.1f s%n",
					slowest.endpoint(), slowest.deliveries(), seconds(slowest.firstAt()), slowest.maxMs(),
					seconds(slowest.maxSentAt())));
		if (Boolean.parseBoolean(Knobs.text("trace-slowest", "false")) && !all.isEmpty()) {
			String endpoint = all.get(0).endpoint();
			for (WebhookSink.Received received : this.sink.endpoint(endpoint).received()) {
				System.out.printf("TRACE %s sent +%.3f received +%.3f id %s%n", endpoint, seconds(received.sentAt()),
						seconds(received.receivedAt()), received.headers().get("webhook-id"));
			}
		}
	}

	/** Seconds since publishing started. */
	private double seconds(long epochMillis) {
		return (epochMillis - this.startedAt) / 1000.0;
	}

	/** One endpoint's deliveries: how many, the first, the slowest. */
	private record Slowest(String endpoint, int deliveries, long firstAt, long maxMs, long maxSentAt) {

		Slowest with(WebhookSink.Received received) {
			long latency = received.receivedAt() - received.sentAt();
			boolean slower = latency > this.maxMs;
			return new Slowest(this.endpoint, this.deliveries + 1, Math.min(this.firstAt, received.receivedAt()),
					slower ? latency : this.maxMs, slower ? received.sentAt() : this.maxSentAt);
		}

	}

	@Override
	public void after() {
		try {
			this.inFlightSampler.shutdownNow();
			// The sink keeps every delivery; the window's share is what arrived inside
			// it.
			long badSignatures = 0;
			for (int w = 0; w < this.webhooks; w++) {
				for (WebhookSink.Received received : this.sink.endpoint("w" + w).received()) {
					if (!received.signatureValid()) {
						badSignatures++;
					}
					else if (received.accepted()) {
						this.measurement.delivered(received.receivedAt(), received.sentAt());
					}
				}
			}
			reportSlowest(3);
			Map<String, Object> settings = new LinkedHashMap<>();
			settings.put("simulation", "WebhookFanout");
			settings.put("row", (this.row != null) ? this.row.key() : "");
			settings.put("webhooks", this.webhooks);
			settings.put("topics", this.topics);
			settings.put("payloadBytes", this.payload);
			settings.put("period", this.period.toString());
			settings.put("via", this.environment.via());
			settings.put("published", this.published.get());
			settings.put("failedPublishes", this.failedPublishes.sum());
			settings.put("badSignatures", badSignatures);
			settings.put("peakInFlightMB", Math.round(this.peakInFlight.get() / 100_000.0) / 10.0);
			double refused = this.environment.metric("streamgate_ingest_overloaded_total");
			settings.put("refusedPublishes", Double.isNaN(refused) ? "unknown" : (Object) (long) refused);
			double failed = this.environment.count("streamgate_webhook_deliveries_total", "outcome=\"retrying\"",
					"outcome=\"failed\"");
			settings.put("failedAttempts", Double.isNaN(failed) ? "unknown" : (Object) (long) failed);
			Map<String, Object> results = this.measurement.results(settings);
			Measurement.report("WebhookFanout", results);
			if (this.row != null) {
				ReferenceTable.record(this.row, results);
			}
		}
		finally {
			this.environment.close();
			this.sink.close();
		}
	}

}
