package dev.streamgate.subscribe.follow;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The bytes that this node holds for its connections and has yet to write to them, all
 * connections together: what waits in their subscriptions' queues, what their writers
 * have taken but not yet handed to the socket, and what their sockets have yet to send.
 * Each connection's {@link ClientBuffer} counts its own share here; a connection that is
 * behind (holds something already) and would take the node over this budget is cut off,
 * so a few clients that read nothing cannot exhaust the heap however large the events.
 */
public final class ClientBuffers {

	private final long max;

	private final long perConnection;

	private final AtomicLong used = new AtomicLong();

	/**
	 * A node's budget.
	 * @param max the bytes all connections may hold together
	 * @param perConnection the bytes one connection may hold
	 */
	public ClientBuffers(long max, long perConnection) {
		this.max = max;
		this.perConnection = perConnection;
	}

	/**
	 * A new connection's buffer.
	 * @param maxEvents the events its queue of each topic holds at most
	 * @param unwritten reads the bytes the connection's socket has yet to write
	 * @return the buffer; {@link ClientBuffer#close() close} it when the connection ends
	 */
	public ClientBuffer open(int maxEvents, LongSupplier unwritten) {
		return new ClientBuffer(this, this.perConnection, maxEvents, unwritten);
	}

	public long max() {
		return this.max;
	}

	/**
	 * The bytes held now.
	 * @return the bytes
	 */
	public long used() {
		return this.used.get();
	}

	void add(long bytes) {
		this.used.addAndGet(bytes);
	}

	void release(long bytes) {
		this.used.addAndGet(-bytes);
	}

}
