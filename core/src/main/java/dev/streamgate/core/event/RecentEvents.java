package dev.streamgate.core.event;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The newest events of one topic kept in memory, so that a subscriber that resumes from a
 * recent cursor needs no Kafka read. Bounded in count, in bytes per topic, and by the
 * node's {@link MemoryBudget}: the oldest go first.
 * <p>
 * Not thread-safe: its owner guards it with its own lock. {@link #clear()} must be called
 * when the owner stops, to give its bytes back to the budget.
 *
 * @param <T> what is kept of each event
 */
public final class RecentEvents<T> {

	private final int maxCount;

	private final long maxBytes;

	private final MemoryBudget budget;

	private final ArrayDeque<Entry<T>> entries = new ArrayDeque<>();

	private long bytes;

	private Cursor start;

	/**
	 * Keeps nothing yet.
	 * @param maxCount events kept at most ({@code 0}: none)
	 * @param maxBytes bytes kept at most
	 * @param budget the node's budget
	 * @param start the cursor before the first event that will be added
	 */
	public RecentEvents(int maxCount, long maxBytes, MemoryBudget budget, Cursor start) {
		this.maxCount = maxCount;
		this.maxBytes = maxBytes;
		this.budget = budget;
		this.start = start;
	}

	/**
	 * Keeps a new event, dropping the oldest ones over the bounds.
	 * @param item what to keep of it
	 * @param size its size in bytes
	 * @param after the cursor just after it
	 */
	public void add(T item, long size, Cursor after) {
		this.entries.addLast(new Entry<>(item, size, after));
		this.bytes += size;
		this.budget.reserve(size);
		while (!this.entries.isEmpty()
				&& (this.entries.size() > this.maxCount || this.bytes > this.maxBytes || this.budget.exceeded())) {
			drop();
		}
	}

	private void drop() {
		Entry<T> dropped = this.entries.removeFirst();
		this.bytes -= dropped.size();
		this.budget.release(dropped.size());
		this.start = dropped.after();
	}

	/**
	 * Where the kept events start: a subscriber at or past this cursor finds every event
	 * it lacks here.
	 * @return the cursor before the oldest kept event
	 */
	public Cursor start() {
		return this.start;
	}

	/**
	 * The kept events, oldest first.
	 * @return a view of them
	 */
	public Iterable<T> items() {
		return () -> this.entries.stream().map(Entry::item).iterator();
	}

	/**
	 * The kept events, newest first.
	 * @return a view of them
	 */
	public Iterable<T> newestFirst() {
		return () -> {
			Iterator<Entry<T>> entries = this.entries.descendingIterator();
			return new Iterator<>() {

				@Override
				public boolean hasNext() {
					return entries.hasNext();
				}

				@Override
				public T next() {
					return entries.next().item();
				}

			};
		};
	}

	public int size() {
		return this.entries.size();
	}

	/** Drops everything and gives the bytes back to the budget. */
	public void clear() {
		while (!this.entries.isEmpty()) {
			drop();
		}
	}

	private record Entry<T>(T item, long size, Cursor after) {
	}

}
