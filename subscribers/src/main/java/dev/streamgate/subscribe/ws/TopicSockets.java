package dev.streamgate.subscribe.ws;

import java.security.Principal;
import java.util.Optional;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.web.reactive.socket.WebSocketHandler;
import org.springframework.web.reactive.socket.WebSocketSession;
import reactor.core.publisher.Mono;

import dev.streamgate.core.topic.TopicStore;
import dev.streamgate.core.web.SubscribeAccess;
import dev.streamgate.subscribe.follow.DeliveryMetrics;
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

	private final DeliveryMetrics metrics;

	TopicSockets(TopicFollowers followers, TopicStore topics, SubscribeAccess access, WsProperties properties,
			MeterRegistry meters) {
		this.followers = followers;
		this.topics = topics;
		this.access = access;
		this.properties = properties;
		this.metrics = new DeliveryMetrics(CHANNEL, meters);
	}

	@Override
	public Mono<Void> handle(WebSocketSession session) {
		return session.getHandshakeInfo()
			.getPrincipal()
			.map(Optional::of)
			.defaultIfEmpty(Optional.<Principal>empty())
			.flatMap((principal) -> new TopicSocket(session, principal.orElse(null), this).run());
	}

	DeliveryMetrics metrics() {
		return this.metrics;
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
