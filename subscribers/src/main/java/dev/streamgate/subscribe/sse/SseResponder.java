package dev.streamgate.subscribe.sse;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import dev.streamgate.core.event.EventType;
import dev.streamgate.core.problem.ProblemJson;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.web.Connections;
import dev.streamgate.core.web.StreamAccessLog;
import dev.streamgate.core.web.SubscribeAccess;
import dev.streamgate.core.web.TokenNotice;
import dev.streamgate.subscribe.follow.ClientBuffer;
import dev.streamgate.subscribe.follow.ClientBuffers;
import dev.streamgate.subscribe.follow.DeliveryMetrics;

/**
 * Writes Server-Sent Events streams, whatever protocol chose their frames (streamgate's
 * streams, the Mercure hub): within the node's limits of streams, each connection's
 * frames held in its bounded buffer, compressed when the client asked for it
 * ({@code Accept-Encoding}), until the connection closes or its token expires.
 */
public final class SseResponder {

	private final SseProperties properties;

	private final ClientBuffers clientBuffers;

	private final StreamAccessLog accessLog;

	private final StreamLimits limits;

	private final SubscribeAccess access;

	SseResponder(SseProperties properties, ClientBuffers clientBuffers, StreamAccessLog accessLog,
			SubscribeAccess access) {
		this.properties = properties;
		this.access = access;
		this.clientBuffers = clientBuffers;
		this.accessLog = accessLog;
		this.limits = new StreamLimits(properties.maxStreams(), properties.maxStreamsPerClient());
	}

	/**
	 * Writes a stream: its frames once they can start (an error before is a problem
	 * response), within the limits of streams, until the connection closes or the token
	 * expires.
	 * @param exchange the request
	 * @param expiresAt when the subscriber's token expires, or {@code null} for never
	 * @param follow the frames on a connection's event loop, once they can start, held in
	 * the connection's buffer
	 * @param connectionFrame writes a frame about the stream itself, by SSE event name: a
	 * {@code token-expiring} notice before the token expires, and the problem that ends
	 * the stream when it has; {@code null} for streams that end without a word
	 * @param metrics where the frames that carry events are counted
	 * @return completes when the stream ends
	 */
	public Mono<Void> respond(ServerWebExchange exchange, Instant expiresAt,
			BiFunction<Executor, ClientBuffer, Flux<Frame>> follow, BiFunction<String, byte[], Frame> connectionFrame,
			DeliveryMetrics metrics) {
		String client = clientAddress(exchange);
		ServerHttpResponse response = exchange.getResponse();
		response.getHeaders().setContentType(MediaType.TEXT_EVENT_STREAM);
		response.getHeaders().setCacheControl("no-cache");
		// NGINX: pass each event through at once.
		response.getHeaders().set("X-Accel-Buffering", "no");
		response.getHeaders().add(HttpHeaders.VARY, HttpHeaders.ACCEPT_ENCODING);
		StreamCompressor.Encoding encoding = StreamCompressor.Encoding
			.negotiate(exchange.getRequest().getHeaders().get(HttpHeaders.ACCEPT_ENCODING));
		StreamCompressor compressor = (encoding != null)
				? new StreamCompressor(encoding, this.properties.compressionLevel()) : null;
		if (encoding != null) {
			response.getHeaders().set(HttpHeaders.CONTENT_ENCODING, encoding.token());
		}
		DataBufferFactory buffers = response.bufferFactory();
		// The stream is counted from its subscription to its end: a connection that
		// closes before the response is written (during an asynchronous token check,
		// say) never subscribes, so it is never counted. An error before the first frame
		// is still a problem response (429 over a limit).
		ClientBuffer held = this.clientBuffers.open(this.properties.clientQueue(), Connections.unwritten(exchange));
		Flux<Frame> frames = Flux.using(() -> {
			this.limits.acquire(client);
			return client;
		}, (counted) -> follow.apply(Connections.eventLoop(exchange), held)
			.takeUntilOther(Connections.closed(exchange)), (counted) -> {
				this.limits.release(counted);
				held.close();
			});
		if (expiresAt != null) {
			frames = untilExpiry(frames, expiresAt, connectionFrame);
		}
		// writeWith flushes once the queue is drained: one flush for a burst, at once
		// for a lone event.
		long startedAt = System.nanoTime();
		long[] sent = { 0 };
		Flux<DataBuffer> written = frames.map((frame) -> {
			if (frame.carriesEvent()) {
				metrics.written(frame.publishedAt());
			}
			DataBuffer buffer = (compressor != null) ? Frame.buffer(compressor.next(frame), buffers, held)
					: frame.buffer(buffers, held);
			sent[0] += buffer.readableByteCount();
			return buffer;
		});
		if (compressor != null) {
			// A stream that ends (token expired, topic deleted, shutdown) ends its
			// compressed stream too; one the client closed needs nothing more.
			written = written.concatWith(Mono.fromSupplier(() -> buffers.wrap(compressor.finish())));
		}
		return response.writeWith(written.doFinally((signal) -> {
			held.close();
			this.accessLog.ended(exchange.getRequest().getRemoteAddress(), exchange.getRequest().getURI(), 200, sent[0],
					startedAt);
		}));
	}

	/**
	 * The frames until the token expires: the client reconnects with a fresh token and
	 * its last event id. Only the expiry says so: a stream that ends otherwise (topic
	 * deleted, shutdown) ends with its own problem or none.
	 */
	private Flux<Frame> untilExpiry(Flux<Frame> frames, Instant expiresAt,
			BiFunction<String, byte[], Frame> connectionFrame) {
		Instant now = Instant.now();
		Duration left = Duration.between(now, expiresAt);
		Mono<Long> expiry = Mono.delay(left.isNegative() ? Duration.ZERO : left);
		if (connectionFrame == null) {
			return frames.takeUntilOther(expiry);
		}
		AtomicBoolean expired = new AtomicBoolean();
		Sinks.Empty<Void> ended = Sinks.empty();
		Mono<Frame> notice = Mono.delay(SubscribeAccess.untilNotice(expiresAt, this.access.expiringNotice(), now))
			.map((tick) -> connectionFrame.apply(TokenNotice.EVENT, TokenNotice.json(expiresAt)))
			.takeUntilOther(ended.asMono());
		return Flux.merge(frames.doFinally((signal) -> ended.tryEmitEmpty()), notice)
			.takeUntilOther(expiry.doOnNext((tick) -> expired.set(true)))
			.concatWith(
					Mono.fromSupplier(() -> expired.get()
							? connectionFrame.apply(EventType.PROBLEM.value(),
									ProblemJson.bytes(ProblemType.TOKEN_EXPIRED,
											"The token of this stream expired at " + expiresAt
													+ "; reconnect with a fresh token and the last event id",
											null))
							: null));
	}

	/**
	 * The retry line that starts a stream: how long EventSource waits before it
	 * reconnects.
	 * @return the frame
	 */
	public Frame retryFrame() {
		return Frame.retry(this.properties.retry().toMillis());
	}

	private static String clientAddress(ServerWebExchange exchange) {
		InetSocketAddress remote = exchange.getRequest().getRemoteAddress();
		return (remote != null && remote.getAddress() != null) ? remote.getAddress().getHostAddress() : "unknown";
	}

}
