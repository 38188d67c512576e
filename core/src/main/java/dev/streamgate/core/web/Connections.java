package dev.streamgate.core.web;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoop;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.Connection;

/**
 * What a request's HTTP connection offers to code that answers it later from another
 * thread (a Kafka client's, say): the event loop that writes to it, and its closing.
 * Outside Reactor Netty (a mock exchange) the event loop is the calling thread and the
 * connection never closes.
 */
public final class Connections {

	/** One scheduler per event loop: a node has as many loops as cores. */
	private static final Map<EventLoop, Scheduler> SCHEDULERS = new ConcurrentHashMap<>();

	private Connections() {
	}

	/**
	 * The event loop of the request's connection.
	 * @param exchange the exchange
	 * @return the executor of the thread that writes to the connection
	 */
	public static Executor eventLoop(ServerWebExchange exchange) {
		EventLoop loop = loop(exchange);
		return (loop != null) ? loop : Runnable::run;
	}

	/**
	 * The event loop of the request's connection as a scheduler: an answer emitted there
	 * is encoded, observed and written on the thread that owns the connection, not on the
	 * thread that completed it.
	 * @param exchange the exchange
	 * @return a scheduler on the connection's event loop
	 */
	public static Scheduler scheduler(ServerWebExchange exchange) {
		EventLoop loop = loop(exchange);
		return (loop != null) ? SCHEDULERS.computeIfAbsent(loop, Schedulers::fromExecutor) : Schedulers.immediate();
	}

	/**
	 * Completes when the connection closes, at once when it closed already: a stream
	 * whose connection was reset while its request waited (for a token check, say) would
	 * otherwise wait for a write to fail, and an idle stream writes nothing that fails.
	 * @param exchange the exchange
	 * @return the connection's end
	 */
	public static Mono<Void> closed(ServerWebExchange exchange) {
		if (ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest()) instanceof Connection connection) {
			return Mono.create((sink) -> connection.channel().closeFuture().addListener((future) -> sink.success()));
		}
		return Mono.never();
	}

	/**
	 * The Netty channel of a request's connection.
	 * @param exchange the exchange
	 * @return the channel, or {@code null} when the server is not Reactor Netty
	 */
	public static Channel channel(ServerWebExchange exchange) {
		if (ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest()) instanceof Connection connection) {
			return connection.channel();
		}
		return null;
	}

	/**
	 * The bytes a request's connection has been given to write and has not yet written to
	 * its socket.
	 * @param exchange the exchange
	 * @return reads the bytes now (0 when the connection is not a Netty one)
	 */
	public static LongSupplier unwritten(ServerWebExchange exchange) {
		Channel channel = channel(exchange);
		return (channel != null) ? unwritten(channel) : () -> 0;
	}

	/**
	 * The bytes a channel has been given to write and has not yet written to its socket.
	 * @param channel the channel
	 * @return reads the bytes now
	 */
	public static LongSupplier unwritten(Channel channel) {
		return () -> {
			ChannelOutboundBuffer pending = channel.unsafe().outboundBuffer();
			return (pending != null) ? pending.totalPendingWriteBytes() : 0;
		};
	}

	private static EventLoop loop(ServerWebExchange exchange) {
		if (ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest()) instanceof Connection connection) {
			return connection.channel().eventLoop();
		}
		return null;
	}

}
