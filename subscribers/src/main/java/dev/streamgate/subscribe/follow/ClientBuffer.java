package dev.streamgate.subscribe.follow;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;

/**
 * What one connection holds and has yet to write, in bytes, whatever its channel (an SSE
 * stream of one topic or several, a WebSocket): an event is counted from when it is
 * queued for the connection until its socket has sent it. A connection that already holds
 * something and would go past its own limit or the node's {@link ClientBuffers budget} is
 * cut off and resumes with its cursor; one that holds nothing always takes the next
 * event, however large, so a client that keeps up is never cut off.
 */
public final class ClientBuffer {

	/** What an event costs beyond its data: its id, type and framing, about. */
	static final int FRAMING = 64;

	private final ClientBuffers node;

	private final long max;

	private final int maxEvents;

	private final AtomicLong used = new AtomicLong();

	/** Reads what the socket has yet to send. */
	private final LongSupplier unwritten;

	/**
	 * What the socket had yet to send when last read, as counted in the node's budget.
	 */
	private final AtomicLong lastUnwritten = new AtomicLong();

	private volatile boolean closed;

	ClientBuffer(ClientBuffers node, long max, int maxEvents, LongSupplier unwritten) {
		this.node = node;
		this.max = max;
		this.maxEvents = maxEvents;
		this.unwritten = unwritten;
	}

	/**
	 * The events one topic's queue holds at most, whatever their size.
	 * @return the count
	 */
	int maxEvents() {
		return this.maxEvents;
	}

	/**
	 * The bytes held now, beyond what the socket has yet to send.
	 * @return the bytes
	 */
	public long used() {
		return this.used.get();
	}

	/**
	 * Counts an event about to be queued, unless the connection is too far behind.
	 * @param bytes the event's bytes
	 * @return false when the connection holds too much already and is to be cut off
	 */
	boolean tryReserve(long bytes) {
		long held = this.used.get() + unwritten();
		if (held > 0 && (held + bytes > this.max || this.node.used() + bytes > this.node.max())) {
			return false;
		}
		add(bytes);
		return true;
	}

	/**
	 * What the socket has yet to send, now; the node's budget follows it.
	 */
	private long unwritten() {
		long now = this.unwritten.getAsLong();
		if (!this.closed) {
			this.node.add(now - this.lastUnwritten.getAndSet(now));
			if (this.closed) {
				this.node.release(this.lastUnwritten.getAndSet(0));
			}
		}
		return now;
	}

	/**
	 * Counts bytes whatever the limits: what a writer took and will release.
	 * @param bytes the bytes
	 */
	public void add(long bytes) {
		if (this.closed) {
			return;
		}
		this.used.addAndGet(bytes);
		this.node.add(bytes);
		if (this.closed) {
			// closed meanwhile: close may not have seen these
			release(bytes);
		}
	}

	/**
	 * No longer counts bytes that were written or dropped.
	 * @param bytes the bytes
	 */
	public void release(long bytes) {
		long before = this.used.getAndUpdate((held) -> Math.max(0, held - bytes));
		this.node.release(Math.min(before, bytes));
	}

	/**
	 * A buffer of a frame's bytes whose bytes count until the socket's writer has taken
	 * them (it copies them to a direct buffer and releases this one), or until it is
	 * dropped.
	 * @param bytes the frame
	 * @return the buffer to write
	 */
	public ByteBuf counted(byte[] bytes) {
		add(bytes.length);
		return new CountedBuffer(bytes, this);
	}

	/**
	 * The connection ended: whatever it still holds (queued events never written, buffers
	 * never released) no longer counts.
	 */
	public void close() {
		this.closed = true;
		this.node.release(this.used.getAndSet(0) + this.lastUnwritten.getAndSet(0));
	}

	/** A heap buffer that tells its connection's count when it is released. */
	private static final class CountedBuffer extends UnpooledHeapByteBuf {

		private final ClientBuffer owner;

		private final int length;

		CountedBuffer(byte[] bytes, ClientBuffer owner) {
			super(UnpooledByteBufAllocator.DEFAULT, bytes, bytes.length);
			this.owner = owner;
			this.length = bytes.length;
		}

		@Override
		protected void deallocate() {
			super.deallocate();
			this.owner.release(this.length);
		}

	}

}
