package dev.streamgate.subscribe.follow;

import java.util.ArrayList;
import java.util.List;

import reactor.core.publisher.MonoSink;

/**
 * The readers of a topic's pull feed (webhook dispatchers) that wait for its next event,
 * in two generations: those that began to wait since the last recheck, and those that
 * have waited through one. An event wakes both; a recheck wakes the older generation
 * only, so each reader looks again between one and two recheck intervals after it began
 * to wait, with one timer for the whole node in place of one per reader.
 */
final class Waiters {

	private List<MonoSink<Void>> waiting = new ArrayList<>();

	private List<MonoSink<Void>> waitedLong = new ArrayList<>();

	/**
	 * Adds a reader; the caller has checked, under the lock that events are added under,
	 * that there is nothing for it yet.
	 * @param sink completed when the reader should look again
	 */
	synchronized void add(MonoSink<Void> sink) {
		this.waiting.add(sink);
	}

	/**
	 * Forgets a reader that stopped waiting.
	 * @param sink the reader
	 */
	synchronized void remove(MonoSink<Void> sink) {
		if (!this.waiting.remove(sink)) {
			this.waitedLong.remove(sink);
		}
	}

	/**
	 * Takes every waiting reader, to be woken by an event.
	 * @return the readers of both generations, empty when none waits
	 */
	synchronized List<MonoSink<Void>> takeAll() {
		if (this.waiting.isEmpty() && this.waitedLong.isEmpty()) {
			return List.of();
		}
		List<MonoSink<Void>> woken = new ArrayList<>(this.waiting);
		woken.addAll(this.waitedLong);
		this.waiting.clear();
		this.waitedLong.clear();
		return woken;
	}

	/**
	 * Takes the readers that have waited through the previous recheck as well; the
	 * younger generation becomes the older.
	 * @return the readers to wake, woken by nothing
	 */
	synchronized List<MonoSink<Void>> recheck() {
		List<MonoSink<Void>> woken = this.waitedLong;
		this.waitedLong = this.waiting;
		this.waiting = new ArrayList<>();
		return woken;
	}

	synchronized int size() {
		return this.waiting.size() + this.waitedLong.size();
	}

}
