package dev.streamgate.subscribe.follow;

import java.util.AbstractQueue;
import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.util.concurrent.Queues;

/**
 * A queue of at most {@code capacity} items for one producer and one consumer at a time,
 * as a unicast sink uses it: Reactor's linked-array queue, which grows by small arrays as
 * it fills and needs neither a lock nor a node per item, with a count for the bound. A
 * subscriber's queue is offered an item (a heartbeat, most of the time) and drained at
 * once thousands of times a second across a node; a {@code LinkedBlockingQueue} took two
 * locks and made a node each time.
 *
 * @param <T> the items
 */
final class BoundedQueue<T> extends AbstractQueue<T> {

	/** Items per array of the queue: an idle subscriber's queue is one small array. */
	private static final int CHUNK = 8;

	private final Queue<T> items = Queues.<T>unbounded(CHUNK).get();

	private final AtomicInteger size = new AtomicInteger();

	private final int capacity;

	BoundedQueue(int capacity) {
		if (capacity < 1) {
			throw new IllegalArgumentException("capacity must be at least 1, not " + capacity);
		}
		this.capacity = capacity;
	}

	@Override
	public boolean offer(T item) {
		if (this.size.incrementAndGet() > this.capacity) {
			this.size.decrementAndGet();
			return false;
		}
		return this.items.offer(item);
	}

	@Override
	public T poll() {
		T item = this.items.poll();
		if (item != null) {
			this.size.decrementAndGet();
		}
		return item;
	}

	@Override
	public T peek() {
		return this.items.peek();
	}

	@Override
	public boolean isEmpty() {
		return this.items.isEmpty();
	}

	@Override
	public int size() {
		return this.size.get();
	}

	/**
	 * Not supported: the queue is only offered to and polled, like the queue it wraps.
	 */
	@Override
	public Iterator<T> iterator() {
		throw new UnsupportedOperationException("A subscriber's queue is only offered to and polled");
	}

}
