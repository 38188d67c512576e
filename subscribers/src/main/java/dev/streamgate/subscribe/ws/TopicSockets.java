package dev.streamgate.subscribe.ws;

import java.security.Principal;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelId;
import org.springframework.context.SmartLifecycle;
import org.springframework.web.reactive.socket.WebSocketHandler;
import org.springframework.web.reactive.socket.WebSocketSession;
import org.springframework.web.reactive.socket.adapter.ReactorNettyWebSocketSession;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.web.Connections;
import dev.streamgate.core.web.StreamAccessLog;
import dev.streamgate.core.web.SubscribeAccess;
import dev.streamgate.subscribe.follow.ClientBuffers;
import dev.streamgate.subscribe.follow.DeliveryMetrics;
import dev.streamgate.subscribe.follow.TopicFollowers;

/**
 * WebSocket subscribers: {@code GET /api/v1/ws}, upgraded. A connection subscribes to
 * topics with JSON messages and receives each topic's events as JSON messages; see
 * {@link TopicSocket}.
 */
final class TopicSockets implements WebSocketHandler, SmartLifecycle {

	/** The channel name of WebSocket subscriptions, in metrics and topic status. */
	static final String CHANNEL = "ws";

	/** The path of WebSocket upgrades. */
	static final String PATH = "/api/v1/ws";

	private final TopicFollowers followers;

	private final TopicStore topics;

	private final SubscribeAccess access;

	private final WsProperties properties;

	private final DeliveryMetrics metrics;

	private final ClientBuffers buffers;

	/** The open connections, closed with 1001 when the node shuts down. */
	private final Set<TopicSocket> open = ConcurrentHashMap.newKeySet();

	private volatile boolean running;

	/** The connections of WebSocket upgrades, until they close. */
	private final Map<ChannelId, Channel> upgrading = new ConcurrentHashMap<>();

	private final StreamAccessLog accessLog;

	TopicSockets(TopicFollowers followers, TopicStore topics, SubscribeAccess access, WsProperties properties,
			MeterRegistry meters, ClientBuffers buffers, StreamAccessLog accessLog) {
		this.followers = followers;
		this.accessLog = accessLog;
		this.buffers = buffers;
		this.topics = topics;
		this.access = access;
		this.properties = properties;
		this.metrics = new DeliveryMetrics(CHANNEL, meters);
		FunctionCounter.builder("streamgate.ws.compressions", WsMessage.COMPRESSIONS, LongAdder::sum)
			.description("Messages compressed for connections that negotiated permessage-deflate: an event's "
					+ "once, whatever the number of connections that receive it")
			.register(meters);
	}

	/**
	 * Remembers the connection of an upgrade request to the WebSocket path, so that its
	 * session can read what the connection's socket has yet to send (a WebFlux session
	 * does not expose its channel).
	 * @param exchange the request
	 * @param chain the rest of the filters
	 * @return the rest of the filters' work
	 */
	Mono<Void> rememberConnection(ServerWebExchange exchange, WebFilterChain chain) {
		if (PATH.equals(exchange.getRequest().getPath().value())) {
			Channel channel = Connections.channel(exchange);
			if (channel != null && this.upgrading.putIfAbsent(channel.id(), channel) == null) {
				channel.closeFuture().addListener((closed) -> this.upgrading.remove(channel.id()));
			}
		}
		return chain.filter(exchange);
	}

	/**
	 * Reads the bytes a session's socket has yet to send.
	 * @param session the session
	 * @return the reader; 0 always when its connection is not known
	 */
	LongSupplier unwritten(WebSocketSession session) {
		Channel channel = channel(session);
		return (channel != null) ? Connections.unwritten(channel) : () -> 0;
	}

	/**
	 * A session's connection, as its upgrade request remembered it.
	 * @param session the session
	 * @return the channel, or {@code null} when it is not known
	 */
	Channel channel(WebSocketSession session) {
		return (session instanceof ReactorNettyWebSocketSession netty) ? this.upgrading.get(netty.getChannelId())
				: null;
	}

	void opened(TopicSocket socket) {
		this.open.add(socket);
		if (!this.running) {
			socket.close(TopicSocket.GOING_AWAY);
		}
	}

	void closed(TopicSocket socket) {
		this.open.remove(socket);
	}

	@Override
	public void start() {
		this.running = true;
	}

	/**
	 * Closes every connection with 1001 (going away) when the node shuts down, so that
	 * clients reconnect to another node at once rather than after a network timeout.
	 */
	@Override
	public void stop() {
		this.running = false;
		this.open.forEach((socket) -> socket.close(TopicSocket.GOING_AWAY));
	}

	@Override
	public boolean isRunning() {
		return this.running;
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

	StreamAccessLog accessLog() {
		return this.accessLog;
	}

	ClientBuffers buffers() {
		return this.buffers;
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
