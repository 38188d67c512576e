package dev.streamgate.bench.simulation;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.gatling.http.action.ws.WsInboundMessage;
import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Session;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.asLongAs;
import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.nothingFor;
import static io.gatling.javaapi.core.CoreDsl.pause;
import static io.gatling.javaapi.core.CoreDsl.rampUsers;
import static io.gatling.javaapi.core.CoreDsl.repeat;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;
import static io.gatling.javaapi.http.HttpDsl.ws;

/**
 * WebSocket subscribers: {@code users} connections to {@code /api/v1/ws}, ramped in over
 * {@code ramp}, each subscribing to {@code perUser} of the {@code topics} event topics on
 * its one connection; publishers post {@code rate} events a second of {@code payload}
 * bytes, round robin over the topics, each stamped with its send time ({@code sentAt},
 * epoch ms), and every subscriber subtracts the stamp on receipt.
 * <p>
 * Knobs (system property or environment variable): {@code users} (100), {@code topics}
 * (1), {@code perUser} (1), {@code rate} (100), {@code payload} (1KB), {@code ramp}
 * (10s), {@code duration} (60s), {@code via}, and those of {@link BenchEnvironment}.
 */
public class WsFanout extends Simulation {

	private static final Pattern SENT_AT = Pattern.compile("sentAt\":(\\d+)");

	private final int users = Knobs.integer("users", 100);

	private final int topics = Knobs.integer("topics", 1);

	private final int perUser = Math.min(this.topics, Knobs.integer("perUser", 1));

	private final double rate = Double.parseDouble(Knobs.text("rate", "100"));

	private final int payload = Knobs.bytes("payload", 1024);

	private final Duration ramp = Knobs.duration("ramp", Duration.ofSeconds(10));

	private final Duration duration = Knobs.duration("duration", Duration.ofSeconds(60));

	private final BenchEnvironment environment = new BenchEnvironment();

	private final AtomicInteger nextUser = new AtomicInteger();

	private final AtomicInteger nextEvent = new AtomicInteger();

	private final AtomicInteger connected = new AtomicInteger();

	private final AtomicLong accepted = new AtomicLong();

	private final String padding = "x".repeat(Math.max(0, this.payload - 48));

	private Measurement measurement;

	private volatile long endAt = Long.MAX_VALUE;

	{
		HttpProtocolBuilder protocol = http.baseUrl(this.environment.gatewayUrl())
			.wsBaseUrl(this.environment.clientUrl().replaceFirst("^http", "ws"))
			.wsUnmatchedInboundMessageBufferSize(100_000);
		ChainBuilder subscribe = repeat(this.perUser, "j").on(exec(ws("subscribe").sendText((session) -> {
			int topic = (session.getInt("user") * this.perUser + session.getInt("j")) % this.topics;
			return "{\"subscribe\":{\"topic\":\"ws-" + topic + "\"}}";
		})));
		ScenarioBuilder subscribers = scenario("WebSocket subscribers")
			.exec((session) -> session.set("user", this.nextUser.getAndIncrement()))
			.exec(ws("connect").connect("/api/v1/ws"))
			.exec(subscribe)
			.exec((session) -> {
				this.connected.incrementAndGet();
				return session;
			})
			.exec(asLongAs((session) -> System.currentTimeMillis() < this.endAt)
				.on(pause(Duration.ofMillis(500)).exec(ws.processUnmatchedMessages(this::received))))
			.exec(ws.processUnmatchedMessages(this::received))
			.exec(ws("close").close());
		ScenarioBuilder publishers = scenario("publishers")
			.exec((session) -> session.set("topic", "ws-" + (this.nextEvent.getAndIncrement() % this.topics)))
			.exec(http("publish").post("/api/v1/publish/#{topic}")
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
		Duration start = this.ramp.plusSeconds(2);
		setUp(subscribers.injectOpen(rampUsers(this.users).during(this.ramp)),
				publishers.injectOpen(nothingFor(start), constantUsersPerSec(this.rate).during(this.duration)))
			.protocols(protocol)
			.maxDuration(start.plus(this.duration).plusSeconds(60))
			.assertions(global().failedRequests().count().is(0L));
	}

	@Override
	public void before() {
		this.environment.start();
		for (int t = 0; t < this.topics; t++) {
			this.environment.admin("POST", "/api/v1/topics", "{\"id\":\"ws-" + t + "\"}");
		}
		this.measurement = new Measurement(this.environment.gatewayPid());
		// The first seconds of publishing warm up; the window is the rest.
		Duration delay = this.ramp.plusSeconds(2).plus(this.duration.dividedBy(4));
		this.measurement.schedule(delay, this.duration.minus(this.duration.dividedBy(4)));
		this.endAt = System.currentTimeMillis() + this.ramp.plus(this.duration).plusSeconds(5).toMillis();
	}

	private Session received(List<WsInboundMessage> messages, Session session) {
		for (WsInboundMessage message : messages) {
			if (message instanceof WsInboundMessage.Text text) {
				Matcher stamp = SENT_AT.matcher(text.message());
				if (stamp.find()) {
					this.measurement.delivered(text.timestamp(), Long.parseLong(stamp.group(1)));
				}
			}
		}
		return session;
	}

	@Override
	public void after() {
		try {
			Map<String, Object> settings = new LinkedHashMap<>();
			settings.put("simulation", "WsFanout");
			settings.put("users", this.users);
			settings.put("connected", this.connected.get());
			settings.put("topics", this.topics);
			settings.put("perUser", this.perUser);
			settings.put("rate", this.rate);
			settings.put("payloadBytes", this.payload);
			settings.put("via", this.environment.via());
			settings.put("accepted", this.accepted.get());
			Measurement.report("WsFanout", this.measurement.results(settings));
		}
		finally {
			this.environment.close();
		}
	}

}
