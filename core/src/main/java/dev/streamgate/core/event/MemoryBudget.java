package dev.streamgate.core.event;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of recent events a node keeps in memory, all topics together: each topic's
 * {@link RecentEvents} reserves what it keeps here and drops its oldest events while the
 * node is over budget, so the heap they take is bounded whatever the number of topics and
 * the size of their events.
 */
public final class MemoryBudget {

	private final long max;

	private final AtomicLong used = new AtomicLong();

	/**
	 * A budget.
	 * @param max the bytes all recent events may take together
	 */
	public MemoryBudget(long max) {
		this.max = max;
	}

	public long max() {
		return this.max;
	}

	/**
	 * The bytes kept now.
	 * @return the bytes
	 */
	public long used() {
		return this.used.get();
	}

	void reserve(long bytes) {
		this.used.addAndGet(bytes);
	}

	void release(long bytes) {
		this.used.addAndGet(-bytes);
	}

	boolean exceeded() {
		return this.used.get() > this.max;
	}

}
