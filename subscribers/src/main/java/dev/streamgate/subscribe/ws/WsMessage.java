package dev.streamgate.subscribe.ws;

import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

import dev.streamgate.subscribe.follow.Deflating;

/**
 * One event's WebSocket message, the same for every connection: its text, and once a
 * connection that negotiated permessage-deflate asks for it, its compressed form, made
 * once for all of them. Each message is compressed on its own (no context taken over from
 * earlier ones), so one compressed message serves every connection whatever it received
 * before.
 */
final class WsMessage {

	/** Messages compressed on this node. */
	static final LongAdder COMPRESSIONS = new LongAdder();

	private final byte[] text;

	private volatile byte[] deflated;

	WsMessage(byte[] text) {
		this.text = text;
	}

	byte[] text() {
		return this.text;
	}

	/**
	 * The message compressed (RFC 7692: a raw deflate block ending with a sync flush,
	 * whose last four bytes are left out), once: the event loops that ask at the same
	 * moment wait for the first.
	 * @param level the deflate level
	 * @return the compressed payload
	 */
	byte[] deflated(int level) {
		byte[] known = this.deflated;
		if (known == null) {
			synchronized (this) {
				known = this.deflated;
				if (known == null) {
					known = deflate(this.text, level);
					this.deflated = known;
				}
			}
		}
		return known;
	}

	/**
	 * Compresses one message as permessage-deflate carries it.
	 * @param text the message
	 * @param level the deflate level
	 * @return the payload of a frame with RSV1 set
	 */
	static byte[] deflate(byte[] text, int level) {
		COMPRESSIONS.increment();
		byte[] flushed = Deflating.syncFlushed(text, level);
		return Arrays.copyOf(flushed, flushed.length - 4);
	}

}
