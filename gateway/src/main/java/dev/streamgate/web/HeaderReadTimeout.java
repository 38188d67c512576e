package dev.streamgate.web;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * Bounds the time from a request's first byte (or a new connection) to the end of its
 * headers: a client that trickles its headers a byte at a time is answered 408 and
 * closed, instead of holding a connection and its file descriptor for as long as it
 * likes. Reactor Netty's own request timeouts start only once the headers are read.
 * <p>
 * Two handlers share the state of one HTTP/1.1 connection: one before the HTTP codec sees
 * raw bytes arrive and starts the clock when no request is being read or answered; one
 * after it sees each request's headers decoded (stopping the clock) and each answer end.
 * A connection that upgrades (WebSocket, h2c) leaves HTTP/1.1 and both handlers.
 * <p>
 * The 408 is followed by a lingering close, as NGINX and Apache httpd do: the gateway
 * shuts its side down and discards what the client still sends for a moment before it
 * closes. Closing at once with unread bytes makes the kernel reset the connection, and a
 * reset can throw away the 408 before the client has read it.
 */
final class HeaderReadTimeout {

	static final String BYTES = "streamgate.headerTimeout.bytes";

	static final String REQUESTS = "streamgate.headerTimeout.requests";

	private static final byte[] TIMED_OUT = ("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n"
			+ "Content-Length: 0\r\n\r\n")
		.getBytes(StandardCharsets.US_ASCII);

	/** How long unread bytes are discarded after the 408 before the connection closes. */
	private static final Duration LINGER = Duration.ofSeconds(2);

	private final long timeoutNanos;

	private boolean lingering;

	private long decoded;

	private long answered;

	private long decodedWhenStarted;

	private ScheduledFuture<?> clock;

	private HeaderReadTimeout(Duration timeout) {
		this.timeoutNanos = timeout.toNanos();
	}

	/**
	 * Adds the handlers to an HTTP/1.1 connection's pipeline; connections without an
	 * HTTP/1.1 codec (HTTP/2 with prior knowledge) are left alone.
	 * @param channel the new connection, its HTTP handlers in place
	 * @param timeout how long its headers may take
	 */
	static void install(Channel channel, Duration timeout) {
		ChannelPipeline pipeline = channel.pipeline();
		ChannelHandlerContext codec = pipeline.context(HttpServerCodec.class);
		if (codec == null || pipeline.get(BYTES) != null) {
			return;
		}
		HeaderReadTimeout state = new HeaderReadTimeout(timeout);
		pipeline.addBefore(codec.name(), BYTES, state.new Bytes());
		pipeline.addAfter(codec.name(), REQUESTS, state.new Requests());
	}

	/**
	 * Whether the connection still speaks HTTP/1.1: a client that opens with HTTP/2's
	 * preface (h2c with prior knowledge) has its HTTP/1.1 codec removed.
	 */
	private static boolean http1(ChannelHandlerContext ctx) {
		return ctx.pipeline().context(HttpServerCodec.class) != null;
	}

	private void start(ChannelHandlerContext bytes) {
		if (!http1(bytes)) {
			leave(bytes);
			return;
		}
		if (this.clock == null && this.decoded == this.answered) {
			this.decodedWhenStarted = this.decoded;
			this.clock = bytes.executor().schedule(() -> expire(bytes), this.timeoutNanos, TimeUnit.NANOSECONDS);
		}
	}

	private void stop() {
		if (this.clock != null) {
			this.clock.cancel(false);
			this.clock = null;
		}
	}

	private void expire(ChannelHandlerContext bytes) {
		this.clock = null;
		if (!http1(bytes)) {
			leave(bytes);
		}
		else if (this.decoded == this.decodedWhenStarted && bytes.channel().isActive()) {
			// Written before the codec: the request's headers never made it through it.
			this.lingering = true;
			bytes.writeAndFlush(Unpooled.wrappedBuffer(TIMED_OUT)).addListener((ChannelFutureListener) this::linger);
		}
	}

	private void linger(ChannelFuture written) {
		Channel channel = written.channel();
		if (!written.isSuccess() || !(channel instanceof DuplexChannel duplex)) {
			channel.close();
			return;
		}
		duplex.shutdownOutput();
		channel.eventLoop().schedule(() -> channel.close(), LINGER.toNanos(), TimeUnit.NANOSECONDS);
	}

	private void leave(ChannelHandlerContext ctx) {
		stop();
		ChannelPipeline pipeline = ctx.pipeline();
		for (String name : new String[] { BYTES, REQUESTS }) {
			if (pipeline.get(name) != null) {
				pipeline.remove(name);
			}
		}
	}

	/** Sees raw bytes: the first of a request starts the clock. */
	private final class Bytes extends ChannelInboundHandlerAdapter {

		@Override
		public void handlerAdded(ChannelHandlerContext ctx) {
			if (ctx.channel().isActive()) {
				start(ctx);
			}
		}

		@Override
		public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
			if (HeaderReadTimeout.this.lingering) {
				ReferenceCountUtil.release(msg);
				return;
			}
			if (msg instanceof ByteBuf) {
				start(ctx);
			}
			super.channelRead(ctx, msg);
		}

		@Override
		public void channelInactive(ChannelHandlerContext ctx) throws Exception {
			stop();
			super.channelInactive(ctx);
		}

	}

	/** Sees decoded requests (the clock stops) and the end of each answer. */
	private final class Requests extends ChannelDuplexHandler {

		@Override
		public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
			if (msg instanceof HttpRequest) {
				HeaderReadTimeout.this.decoded++;
				stop();
			}
			super.channelRead(ctx, msg);
		}

		@Override
		public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
			if (msg instanceof HttpResponse response
					&& response.status().code() == HttpResponseStatus.SWITCHING_PROTOCOLS.code()) {
				leave(ctx);
			}
			else if (msg instanceof LastHttpContent) {
				HeaderReadTimeout.this.answered++;
			}
			super.write(ctx, msg, promise);
		}

	}

}
