package dev.streamgate.subscribe.sse;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.NettyDataBufferFactory;

import dev.streamgate.subscribe.follow.ClientBuffer;

import dev.streamgate.core.event.EventType;

/**
 * One encoded SSE frame, written as the same bytes to every connection that receives it,
 * and compressed once for every connection that asked for a compressed stream.
 */
public final class Frame {

	private static final byte[] ID = "id: ".getBytes(StandardCharsets.UTF_8);

	private static final byte[] EVENT = "\nevent: ".getBytes(StandardCharsets.UTF_8);

	private static final byte[] DATA = "\ndata: ".getBytes(StandardCharsets.UTF_8);

	/** A comment line that keeps an idle stream open through proxies. */
	public static final Frame HEARTBEAT = new Frame(": heartbeat\n\n".getBytes(StandardCharsets.UTF_8), 0);

	private final byte[] bytes;

	private final long publishedAt;

	/** Made on first use: most frames go to no compressed stream. */
	private volatile Deflated deflated;

	/**
	 * A frame.
	 * @param bytes the frame, ending with a blank line
	 * @param publishedAt when its event was published (epoch milliseconds), 0 for frames
	 * that carry no event
	 */
	Frame(byte[] bytes, long publishedAt) {
		this.bytes = bytes;
		this.publishedAt = publishedAt;
	}

	/**
	 * A frame already encoded.
	 * @param bytes the frame, ending with a blank line
	 * @param publishedAt when its event was published (epoch milliseconds), 0 for frames
	 * that carry no event
	 * @return the frame
	 */
	public static Frame of(byte[] bytes, long publishedAt) {
		return new Frame(bytes, publishedAt);
	}

	byte[] bytes() {
		return this.bytes;
	}

	long publishedAt() {
		return this.publishedAt;
	}

	/**
	 * The frame compressed on its own, once for every connection. The event loops of a
	 * topic's connections ask for it at the same moment: one compresses, the others wait
	 * for it rather than compress it again.
	 * @param level the deflate level of the node's compressed streams
	 * @return the compressed frame
	 */
	Deflated deflated(int level) {
		Deflated known = this.deflated;
		if (known == null) {
			synchronized (this) {
				known = this.deflated;
				if (known == null) {
					known = Deflated.of(this.bytes, level);
					this.deflated = known;
				}
			}
		}
		return known;
	}

	/**
	 * The heartbeat's bytes once, outside the heap, for every connection: a heap frame is
	 * copied into a fresh direct buffer by the socket's write (and one in 128 of those
	 * copies is tracked for leaks, with a stack trace), and every stream writes a
	 * heartbeat every {@code streamgate.sse.heartbeat}. Never released: each write gets a
	 * view of it.
	 */
	private static final ByteBuf HEARTBEAT_BYTES = Unpooled.unreleasableBuffer(
			Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(HEARTBEAT.bytes.length).put(HEARTBEAT.bytes).flip()));

	boolean carriesEvent() {
		return this.publishedAt > 0;
	}

	/**
	 * The frame as a buffer to write to a connection.
	 * @param buffers the connection's buffers
	 * @return the frame's bytes
	 */
	DataBuffer buffer(DataBufferFactory buffers) {
		if (this == HEARTBEAT && buffers instanceof NettyDataBufferFactory netty) {
			return netty.wrap(HEARTBEAT_BYTES.duplicate());
		}
		return buffers.wrap(this.bytes);
	}

	/**
	 * The frame as a buffer to write to a connection, its bytes counted in the
	 * connection's buffer until the socket's writer has taken them.
	 * @param buffers the connection's buffers
	 * @param held what the connection holds
	 * @return the frame's bytes
	 */
	DataBuffer buffer(DataBufferFactory buffers, ClientBuffer held) {
		if (this != HEARTBEAT && buffers instanceof NettyDataBufferFactory netty) {
			return netty.wrap(held.counted(this.bytes));
		}
		return buffer(buffers);
	}

	/**
	 * Bytes made for one connection (its compressed stream) as a buffer to write to it,
	 * counted in the connection's buffer like a frame's.
	 * @param bytes the bytes
	 * @param buffers the connection's buffers
	 * @param held what the connection holds
	 * @return the buffer
	 */
	static DataBuffer buffer(byte[] bytes, DataBufferFactory buffers, ClientBuffer held) {
		if (buffers instanceof NettyDataBufferFactory netty) {
			return netty.wrap(held.counted(bytes));
		}
		return buffers.wrap(bytes);
	}

	/**
	 * Encodes an event. Line breaks inside the JSON become further {@code data:} lines,
	 * which EventSource joins back with line feeds.
	 * @param id the cursor after the event, or {@code null}
	 * @param type the event type
	 * @param json the UTF-8 JSON data
	 * @param publishedAt when the event was published (epoch milliseconds)
	 * @return the frame
	 */
	static Frame of(String id, EventType type, byte[] json, long publishedAt) {
		return of(id, type.value(), json, publishedAt);
	}

	/**
	 * A frame about the connection rather than a topic's events (a problem, a
	 * {@code token-expiring} notice): no id, so that a client's resume cursor stays.
	 * @param name the SSE event name
	 * @param json the UTF-8 JSON data
	 * @return the frame
	 */
	static Frame named(String name, byte[] json) {
		return of(null, name, json, 0);
	}

	private static Frame of(String id, String name, byte[] json, long publishedAt) {
		byte[] idBytes = (id != null) ? id.getBytes(StandardCharsets.UTF_8) : null;
		byte[] typeBytes = name.getBytes(StandardCharsets.UTF_8);
		int breaks = 0;
		for (byte b : json) {
			if (b == '\n' || b == '\r') {
				breaks++;
			}
		}
		byte[] out = new byte[((idBytes != null) ? ID.length + idBytes.length + 1 : 0) + EVENT.length - 1
				+ typeBytes.length + DATA.length + json.length + breaks * (DATA.length - 1) + 2];
		int at = 0;
		if (idBytes != null) {
			at = put(out, at, ID);
			at = put(out, at, idBytes);
			out[at++] = '\n';
		}
		at = put(out, at, EVENT, 1);
		at = put(out, at, typeBytes);
		at = put(out, at, DATA);
		if (breaks == 0) {
			// JSON as streamgate writes it: one line, copied whole.
			at = put(out, at, json);
		}
		else {
			for (int i = 0; i < json.length; i++) {
				byte b = json[i];
				if (b == '\r' && i + 1 < json.length && json[i + 1] == '\n') {
					continue;
				}
				if (b == '\n' || b == '\r') {
					at = put(out, at, DATA);
				}
				else {
					out[at++] = b;
				}
			}
		}
		out[at++] = '\n';
		out[at++] = '\n';
		// Shorter than counted only when a CR LF made one line break.
		return new Frame((at == out.length) ? out : Arrays.copyOf(out, at), publishedAt);
	}

	/**
	 * This frame, made without an id, with an id line in front.
	 * @param id the cursor after the event
	 * @return a new frame
	 */
	Frame withId(String id) {
		byte[] idBytes = id.getBytes(StandardCharsets.UTF_8);
		byte[] out = new byte[ID.length + idBytes.length + 1 + this.bytes.length];
		int at = put(out, 0, ID);
		at = put(out, at, idBytes);
		out[at++] = '\n';
		put(out, at, this.bytes);
		return new Frame(out, this.publishedAt);
	}

	/**
	 * The first frame of a stream: the reconnection delay.
	 * @param retryMillis the delay
	 * @return the frame
	 */
	static Frame retry(long retryMillis) {
		return new Frame(("retry: " + retryMillis + "\n\n").getBytes(StandardCharsets.UTF_8), 0);
	}

	private static int put(byte[] out, int at, byte[] bytes) {
		return put(out, at, bytes, 0);
	}

	private static int put(byte[] out, int at, byte[] bytes, int from) {
		System.arraycopy(bytes, from, out, at, bytes.length - from);
		return at + bytes.length - from;
	}

}
