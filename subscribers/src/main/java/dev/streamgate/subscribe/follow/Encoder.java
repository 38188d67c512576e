package dev.streamgate.subscribe.follow;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How one channel (SSE, WebSocket, ...) turns a followed event into what it writes. Each
 * event is encoded once per channel, whatever the number of connections: the encoding is
 * kept on the event ({@link Followed#encoded(Encoder)}) and the same bytes go to every
 * connection.
 *
 * @param <T> the encoded form
 */
public abstract class Encoder<T> {

	/** Encoders a node may have at most. */
	static final int SLOTS = 4;

	private static final AtomicInteger next = new AtomicInteger();

	private final int slot = next.getAndIncrement();

	protected Encoder() {
		if (this.slot >= SLOTS) {
			throw new IllegalStateException("At most " + SLOTS + " encoders: make one per channel and share it");
		}
	}

	int slot() {
		return this.slot;
	}

	/**
	 * Encodes an event.
	 * @param followed the event
	 * @return its encoded form
	 */
	protected abstract T encode(Followed followed);

}
