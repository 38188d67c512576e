package dev.streamgate.publish.ingest;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The bytes of publications this node holds between reading a request and Kafka's answer,
 * bounded so that a node asked for more than Kafka takes does not queue the excess on the
 * heap until the write timeout. A publication that does not fit waits, in order of
 * arrival and without its body being read, until the bytes ahead of it are released or
 * {@code maxWait} has passed; as many bytes may wait as may be held. What waits longer,
 * or finds the waiting room full, is {@link Refused}. A publication is admitted whenever
 * nothing else is held, so one larger than the bound is slow rather than refused for
 * ever.
 */
final class InFlightPublications {

	private final long limit;

	private final Duration maxWait;

	private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();

	/** Guarded by {@code this}. */
	private long held;

	/** Guarded by {@code this}. */
	private long waiting;

	InFlightPublications(long limit, Duration maxWait) {
		if (limit <= 0) {
			throw new IllegalArgumentException("limit must be positive, not " + limit);
		}
		if (maxWait.isNegative()) {
			throw new IllegalArgumentException("maxWait must not be negative, not " + maxWait);
		}
		this.limit = limit;
		this.maxWait = maxWait;
	}

	/**
	 * Runs a publication once its bytes are held, and releases them when it ends (or is
	 * cancelled).
	 * @param <T> what the publication answers
	 * @param bytes what the publication costs
	 * @param publication subscribed once the bytes are held
	 * @return the publication's answer, or an error {@link Refused} when it could not be
	 * held in time
	 */
	<T> Mono<T> hold(long bytes, Supplier<Mono<T>> publication) {
		return Mono.defer(() -> {
			Waiter waiter;
			synchronized (this) {
				if (this.waiters.isEmpty() && fits(bytes)) {
					this.held += bytes;
					return run(bytes, publication);
				}
				if (this.maxWait.isZero() || (this.waiting > 0 && this.waiting + bytes > this.limit)) {
					return Mono.error(new Refused(false));
				}
				waiter = new Waiter(bytes);
				this.waiters.add(waiter);
				this.waiting += bytes;
			}
			return Mono
				.firstWithSignal(waiter.admitted.asMono(), Mono.delay(this.maxWait).map((tick) -> expire(waiter)))
				.doOnCancel(() -> abandon(waiter))
				.flatMap((admitted) -> {
					if (!admitted) {
						return Mono.error(new Refused(true));
					}
					// Whoever settles an admitted waiter releases its bytes: the
					// publication, or abandon when the request went away first.
					return waiter.settled.compareAndSet(false, true) ? run(bytes, publication) : Mono.empty();
				});
		});
	}

	private <T> Mono<T> run(long bytes, Supplier<Mono<T>> publication) {
		return Mono.defer(publication).doFinally((signal) -> release(bytes));
	}

	private boolean fits(long bytes) {
		return this.held == 0 || this.held + bytes <= this.limit;
	}

	/** Its wait is over: whether it was admitted meanwhile. */
	private boolean expire(Waiter waiter) {
		return !leave(waiter);
	}

	/** The request went away: whatever its waiter waited for or was given goes back. */
	private void abandon(Waiter waiter) {
		if (!leave(waiter) && waiter.settled.compareAndSet(false, true)) {
			release(waiter.bytes);
		}
	}

	/** Whether the waiter was still waiting (and now is not, nothing held for it). */
	private synchronized boolean leave(Waiter waiter) {
		if (this.waiters.remove(waiter)) {
			this.waiting -= waiter.bytes;
			waiter.settled.set(true);
			return true;
		}
		return false;
	}

	private void release(long bytes) {
		List<Waiter> admitted = new ArrayList<>(0);
		synchronized (this) {
			this.held -= bytes;
			while (!this.waiters.isEmpty() && fits(this.waiters.peek().bytes)) {
				Waiter next = this.waiters.poll();
				this.waiting -= next.bytes;
				this.held += next.bytes;
				admitted.add(next);
			}
		}
		// Outside the lock: an admitted publication may start at once on this thread.
		admitted.forEach((waiter) -> waiter.admitted.tryEmitValue(true));
	}

	synchronized long held() {
		return this.held;
	}

	synchronized long waiting() {
		return this.waiting;
	}

	long limit() {
		return this.limit;
	}

	Duration maxWait() {
		return this.maxWait;
	}

	private static final class Waiter {

		private final long bytes;

		private final Sinks.One<Boolean> admitted = Sinks.one();

		/**
		 * Its bytes are accounted for: never held, released, or held by its publication.
		 */
		private final AtomicBoolean settled = new AtomicBoolean();

		private Waiter(long bytes) {
			this.bytes = bytes;
		}

	}

	/** A publication this node could not hold: nothing of it was published. */
	static final class Refused extends RuntimeException {

		private final boolean waited;

		Refused(boolean waited) {
			super(null, null, false, false);
			this.waited = waited;
		}

		/**
		 * Whether it waited {@code maxWait} (rather than finding the waiting room full).
		 */
		boolean waited() {
			return this.waited;
		}

	}

}
