package dev.streamgate.subscribe.follow;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How one channel (SSE, WebSocket, ...) turns a followed event into what it writes. Each
 * event is encoded once per channel, whatever the number of connections: the encoding is
 * kept on the event ({@link Followed#encoded(Encoder)}) and the same bytes go to every
 * connection. Encoders are singletons, one per channel and format: each has its own index
 * in the events' encodings, which grow as encoders are made.
 *
 * @param <T> the encoded form
 */
public abstract class Encoder<T> {

	private static final AtomicInteger made = new AtomicInteger();

	private final int slot = made.getAndIncrement();

	int slot() {
		return this.slot;
	}

	/** How many encoders there are: the size an event's encodings need. */
	static int count() {
		return made.get();
	}

	/**
	 * Encodes an event.
	 * @param followed the event
	 * @return its encoded form
	 */
	protected abstract T encode(Followed followed);

}
