package dev.streamgate.bench.simulation;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.gatling.http.action.sse.SseInboundMessage;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Session;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.asLongAs;
import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.nothingFor;
import static io.gatling.javaapi.core.CoreDsl.pause;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.sse;
import static io.gatling.javaapi.http.HttpDsl.status;

/**
 * The HTTP ingest under an open model: {@code rate} publications a second of
 * {@code payload} bytes each to one event topic, whatever the answers' pace, each stamped
 * with its send time ({@code sentAt}, epoch ms). {@code subscribers} SSE clients of the
 * topic subtract the stamp on receipt; Gatling's report has the publish answers' times.
 * <p>
 * Knobs (system property or environment variable): {@code rate} (200), {@code payload}
 * (1KB), {@code subscribers} (1), {@code ramp} (5s: publishing starts after it, once the
 * subscribers are connected), {@code duration} (60s), {@code via}, and those of
 * {@link BenchEnvironment}.
 */
public class Ingest extends Simulation {

	private static final Pattern SENT_AT = Pattern.compile("sentAt\\\\?\":(\\d+)");

	private final double rate = Double.parseDouble(Knobs.text("rate", "200"));

	private final int payload = Knobs.bytes("payload", 1024);

	private final int subscribers = Knobs.integer("subscribers", 1);

	private final Duration ramp = Knobs.duration("ramp", Duration.ofSeconds(5));

	private final Duration duration = Knobs.duration("duration", Duration.ofSeconds(60));

	private final BenchEnvironment environment = new BenchEnvironment();

	private final AtomicLong accepted = new AtomicLong();

	private final String padding = "x".repeat(Math.max(0, this.payload - 48));

	private Measurement measurement;

	private volatile long endAt = Long.MAX_VALUE;

	{
		HttpProtocolBuilder protocol = http.baseUrl(this.environment.clientUrl())
			.sseUnmatchedInboundMessageBufferSize(100_000);
		ScenarioBuilder subscribing = scenario("subscribers").exec(sse("subscribe").get("/api/v1/stream/ingest"))
			.exec(asLongAs((session) -> System.currentTimeMillis() < this.endAt)
				.on(pause(Duration.ofMillis(500)).exec(sse.processUnmatchedMessages(this::received))))
			.exec(sse.processUnmatchedMessages(this::received))
			.exec(sse("close").close());
		ScenarioBuilder publishing = scenario("publishers")
			.exec(http("publish").post("/api/v1/publish/ingest")
				.header("Content-Type", "application/json")
				.body(StringBody((session) -> "{\"sentAt\":" + System.currentTimeMillis() + ",\"pad\":\"" + this.padding
						+ "\"}"))
				.check(status().is(202)))
			.exec((session) -> {
				if (!session.isFailed()) {
					this.accepted.incrementAndGet();
				}
				return session;
			});
		setUp(subscribing.injectOpen(atOnceUsers(this.subscribers)),
				publishing.injectOpen(nothingFor(this.ramp), constantUsersPerSec(this.rate).during(this.duration)))
			.protocols(protocol)
			.maxDuration(this.ramp.plus(this.duration).plusSeconds(60))
			.assertions(global().failedRequests().count().is(0L));
	}

	@Override
	public void before() {
		this.environment.start();
		this.environment.admin("POST", "/api/v1/topics",
				"{\"id\":\"ingest\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}");
		this.measurement = new Measurement(this.environment.gatewayPid());
		this.measurement.schedule(this.ramp, this.duration);
		this.endAt = System.currentTimeMillis() + this.ramp.plus(this.duration).plusSeconds(3).toMillis();
	}

	private Session received(List<SseInboundMessage> messages, Session session) {
		for (SseInboundMessage message : messages) {
			Matcher stamp = SENT_AT.matcher(message.message());
			if (stamp.find()) {
				this.measurement.delivered(message.timestamp(), Long.parseLong(stamp.group(1)));
			}
		}
		return session;
	}

	@Override
	public void after() {
		try {
			Map<String, Object> settings = new LinkedHashMap<>();
			settings.put("simulation", "Ingest");
			settings.put("rate", this.rate);
			settings.put("payloadBytes", this.payload);
			settings.put("subscribers", this.subscribers);
			settings.put("via", this.environment.via());
			settings.put("accepted", this.accepted.get());
			Measurement.report("Ingest", this.measurement.results(settings));
		}
		finally {
			this.environment.close();
		}
	}

}
