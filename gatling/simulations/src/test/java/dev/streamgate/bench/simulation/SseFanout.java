package dev.streamgate.bench.simulation;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.gatling.http.action.sse.SseInboundMessage;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Session;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;

import dev.streamgate.bench.source.MockSourceApi;

import static io.gatling.javaapi.core.CoreDsl.asLongAs;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.pause;
import static io.gatling.javaapi.core.CoreDsl.rampUsers;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.sse;

/**
 * SSE subscribers of topics fed by the HTTP poller: the reference's first table.
 * <p>
 * {@code topics} snapshot topics poll the mock source API every {@code period}; each poll
 * finds a document of {@code payload} bytes with a share {@code change} of its values
 * renewed, stamped with {@code generatedAt} when the mock served it. {@code users}
 * subscribers, ramped in linearly over {@code ramp} and spread evenly over the topics,
 * stay connected through the measured window of {@code duration}; each one subtracts
 * {@code generatedAt} from its receipt time for every event after its first (the first is
 * the snapshot of whatever version was current when it connected).
 * <p>
 * Knobs (system property or environment variable): {@code row} (a row of REFERENCE.md:
 * {@code sse-1} .. {@code sse-16}; sets users, topics, payload and period and records the
 * result in docs/benchmarks.md), {@code users} (100), {@code topics} (100),
 * {@code payload} (20KB), {@code period} (1s), {@code mode} (snapshot-patch or
 * snapshot-only), {@code change} (0.2), {@code ramp} (30s), {@code duration} (60s),
 * {@code via} (direct or nginx), and those of {@link BenchEnvironment}.
 */
public class SseFanout extends Simulation {

	private static final Pattern EVENT = Pattern.compile("\"event\":\"([a-z-]+)\"");

	/**
	 * {@code "generatedAt":123} in a snapshot, {@code "path":"/generatedAt","value":123}
	 * in a patch (Gatling renders an event as JSON with its data inlined, escaped when
	 * the data is not JSON).
	 */
	private static final Pattern GENERATED_AT = Pattern.compile("generatedAt\\\\?\"(?:,\\\\?\"value\\\\?\")?:(\\d+)");

	private final ReferenceTable.Row row = ReferenceTable.chosen("sse");

	private final int users = Knobs.integer("users", (this.row != null) ? this.row.users() : 100);

	private final int topics = Knobs.integer("topics", (this.row != null) ? this.row.topics() : 100);

	private final int payload = Knobs.bytes("payload", (this.row != null) ? this.row.payloadKb() * 1024 : 20 * 1024);

	private final Duration period = Knobs.duration("period",
			(this.row != null) ? this.row.period() : Duration.ofSeconds(1));

	private final String mode = Knobs.text("mode", "snapshot-patch");

	private final double change = Double.parseDouble(Knobs.text("change", "0.2"));

	private final Duration ramp = Knobs.duration("ramp", Duration.ofSeconds(30));

	private final Duration duration = Knobs.duration("duration", Duration.ofSeconds(60));

	private final BenchEnvironment environment = new BenchEnvironment();

	private final AtomicInteger nextUser = new AtomicInteger();

	private final AtomicInteger connected = new AtomicInteger();

	private MockSourceApi source;

	private Measurement measurement;

	private volatile long endAt = Long.MAX_VALUE;

	{
		HttpProtocolBuilder protocol = http.baseUrl(this.environment.clientUrl())
			.sseUnmatchedInboundMessageBufferSize(10_000);
		ScenarioBuilder subscribers = scenario("SSE subscribers")
			.exec((session) -> session.set("topic", "sse-" + (this.nextUser.getAndIncrement() % this.topics)))
			.exec(sse("subscribe").get("/api/v1/stream/#{topic}?mode=" + this.mode))
			.exec((session) -> {
				this.connected.incrementAndGet();
				return session;
			})
			.exec(asLongAs((session) -> System.currentTimeMillis() < this.endAt)
				.on(pause(Duration.ofMillis(500)).exec(sse.processUnmatchedMessages(this::received))))
			.exec(sse.processUnmatchedMessages(this::received))
			.exec(sse("close").close());
		Duration total = this.ramp.plus(this.duration).plus(Duration.ofSeconds(5));
		setUp(subscribers.injectOpen(rampUsers(this.users).during(this.ramp))).protocols(protocol)
			.maxDuration(total.plus(Duration.ofSeconds(60)))
			.assertions(global().failedRequests().count().is(0L));
	}

	@Override
	public void before() {
		this.source = MockSourceApi.start(new MockSourceApi.Settings("127.0.0.1", 0, this.payload, this.change, null));
		this.environment.start();
		for (int t = 0; t < this.topics; t++) {
			this.environment.admin("POST", "/api/v1/topics",
					"{\"id\":\"sse-" + t + "\",\"payloadType\":\"snapshot\","
							+ "\"publisher\":{\"type\":\"http-poller\",\"url\":\"" + this.source.url("d" + t) + "\","
							+ "\"pollingPeriod\":\"" + this.period + "\"}}");
		}
		this.measurement = new Measurement(this.environment.gatewayPid());
		// The window opens 2 s after the ramp so that the last subscribers are connected.
		Duration delay = this.ramp.plus(Duration.ofSeconds(2));
		this.measurement.schedule(delay, this.duration);
		this.endAt = System.currentTimeMillis() + delay.plus(this.duration).plusSeconds(2).toMillis();
	}

	private Session received(List<SseInboundMessage> messages, Session session) {
		int seen = session.contains("seen") ? session.getInt("seen") : 0;
		for (SseInboundMessage message : messages) {
			Matcher event = EVENT.matcher(message.message());
			if (!event.find() || !(event.group(1).equals("snapshot") || event.group(1).equals("patch"))) {
				continue;
			}
			Matcher stamp = GENERATED_AT.matcher(message.message());
			long generatedAt = (seen > 0 && stamp.find()) ? Long.parseLong(stamp.group(1)) : 0;
			if (seen > 0) {
				this.measurement.delivered(message.timestamp(), generatedAt);
			}
			seen++;
		}
		return session.set("seen", seen);
	}

	@Override
	public void after() {
		try {
			Map<String, Object> settings = new LinkedHashMap<>();
			settings.put("simulation", "SseFanout");
			settings.put("row", (this.row != null) ? this.row.key() : "");
			settings.put("users", this.users);
			settings.put("connected", this.connected.get());
			settings.put("topics", this.topics);
			settings.put("payloadBytes", this.payload);
			settings.put("period", this.period.toString());
			settings.put("mode", this.mode);
			settings.put("via", this.environment.via());
			Map<String, Object> results = this.measurement.results(settings);
			Measurement.report("SseFanout", results);
			if (this.row != null) {
				ReferenceTable.record(this.row, results);
			}
		}
		finally {
			this.environment.close();
			this.source.close();
		}
	}

}
