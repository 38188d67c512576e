package dev.streamgate.subscribe.ws;

import java.security.Principal;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.web.reactive.socket.WebSocketHandler;
import org.springframework.web.reactive.socket.WebSocketSession;
import reactor.core.publisher.Mono;

import dev.streamgate.core.topic.TopicStore;
import dev.streamgate.core.web.SubscribeAccess;
import dev.streamgate.subscribe.follow.TopicFollowers;

/**
 * WebSocket subscribers: {@code GET /api/v1/ws}, upgraded. A connection subscribes to
 * topics with JSON messages and receives each topic's events as JSON messages; see
 * {@link TopicSocket}.
 */
final class TopicSockets implements WebSocketHandler {

	/** The channel name of WebSocket subscriptions, in metrics and topic status. */
	static final String CHANNEL = "ws";

	private final TopicFollowers followers;

	private final TopicStore topics;

	private final SubscribeAccess access;

	private final WsProperties properties;

	private final MeterRegistry meters;

	private final Timer latency;

	TopicSockets(TopicFollowers followers, TopicStore topics, SubscribeAccess access, WsProperties properties,
			MeterRegistry meters) {
		this.followers = followers;
		this.topics = topics;
		this.access = access;
		this.properties = properties;
		this.meters = meters;
		this.latency = Timer.builder("streamgate.delivery.latency")
			.description("From publication (the Kafka record time) to the write to a subscriber")
			.tag("channel", CHANNEL)
			.publishPercentileHistogram()
			.minimumExpectedValue(Duration.ofMillis(1))
			.maximumExpectedValue(Duration.ofSeconds(30))
			.register(meters);
	}

	@Override
	public Mono<Void> handle(WebSocketSession session) {
		return session.getHandshakeInfo()
			.getPrincipal()
			.map(Optional::of)
			.defaultIfEmpty(Optional.<Principal>empty())
			.flatMap((principal) -> new TopicSocket(session, principal.orElse(null), this).run());
	}

	void delivered(String topicId, long publishedAt) {
		// Registered once, then found by id: Micrometer's builders are mutable, so one
		// builder shared across connections would race.
		Counter.builder("streamgate.events.delivered")
			.description("Events written to subscribers")
			.tag("channel", CHANNEL)
			.tag("topic", topicId)
			.register(this.meters)
			.increment();
		this.latency.record(Math.max(0, System.currentTimeMillis() - publishedAt), TimeUnit.MILLISECONDS);
	}

	TopicFollowers followers() {
		return this.followers;
	}

	TopicStore topics() {
		return this.topics;
	}

	SubscribeAccess access() {
		return this.access;
	}

	WsProperties properties() {
		return this.properties;
	}

}
