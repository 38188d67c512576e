package dev.streamgate.subscribe.follow;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.filter.Selection;
import dev.streamgate.core.topic.SubscriptionMode;

/**
 * One subscriber of a topic on one connection: a queue of what the connection has still
 * to write, bounded in events and in bytes (its connection's {@link ClientBuffer}). A
 * subscriber whose queue is full, or whose connection holds too much, is cut off at once,
 * without waiting for the queue to drain, so that it neither slows the others nor holds
 * memory.
 */
final class Subscription {

	/** Subscriptions made so far: each takes the next heartbeat slice. */
	private static final AtomicInteger MADE = new AtomicInteger();

	private final String channel;

	private final SubscriptionMode mode;

	private final Selection selection;

	/**
	 * What the subscriber's channel takes of the events its selection selects, decided
	 * here on the tail's thread so that an event it would drop is never queued;
	 * {@code null} for all.
	 */
	private final Predicate<Followed> accepts;

	private final Sinks.Many<Followed> queue;

	private final Sinks.Empty<Void> cut = Sinks.empty();

	private volatile boolean closed;

	private volatile boolean slow;

	/** Events at or before this cursor are not sent; null once the subscriber is live. */
	private Cursor skipUntil;

	private final Executor executor;

	/** Told when the queue overflowed and the subscriber was cut off. */
	private final Consumer<Subscription> onSlow;

	/** Which slice of the heartbeat interval this subscriber's heartbeat goes out in. */
	private final int heartbeatSlice = Math.floorMod(MADE.getAndIncrement(), HeartbeatWheel.SLICES);

	/** What the connection holds, in bytes. */
	private final ClientBuffer buffer;

	Subscription(String channel, SubscriptionMode mode, Selection selection, ClientBuffer buffer, Cursor skipUntil,
			Executor executor, Consumer<Subscription> onSlow) {
		this(channel, mode, selection, null, buffer, skipUntil, executor, onSlow);
	}

	Subscription(String channel, SubscriptionMode mode, Selection selection, Predicate<Followed> accepts,
			ClientBuffer buffer, Cursor skipUntil, Executor executor, Consumer<Subscription> onSlow) {
		this.accepts = accepts;
		this.channel = channel;
		this.onSlow = onSlow;
		this.mode = mode;
		this.selection = selection;
		this.executor = executor;
		this.buffer = buffer;
		// Bounded in events and, through the connection's buffer, in bytes; allocated
		// as it fills: an idle subscriber's queue costs a few bytes, not an array of
		// slots (4 KiB per connection at 1024).
		this.queue = Sinks.many().unicast().onBackpressureBuffer(new BoundedQueue<>(buffer.maxEvents()));
		this.skipUntil = skipUntil;
	}

	String channel() {
		return this.channel;
	}

	/**
	 * The slice of the heartbeat interval this subscriber's heartbeat goes out in: the
	 * subscriptions take the {@link HeartbeatWheel#SLICES} in turn.
	 * @return the slice
	 */
	int heartbeatSlice() {
		return this.heartbeatSlice;
	}

	/** Queues a heartbeat; a subscriber whose queue is full is cut off. */
	void heartbeat() {
		if (!offer(Followed.HEARTBEAT)) {
			this.onSlow.accept(this);
		}
	}

	SubscriptionMode mode() {
		return this.mode;
	}

	/**
	 * The part of the document the subscriber receives.
	 * @return the JSON pointer, or {@code null} for the whole document
	 */
	String view() {
		return (this.selection.view() != null) ? this.selection.view().pointer() : null;
	}

	/**
	 * Where this subscriber's events are offered: the event loop of its connection.
	 * @return the executor
	 */
	Executor executor() {
		return this.executor;
	}

	/**
	 * Adapts a shared event to this subscriber. One that resumed from a cursor ahead of
	 * this node on some partition (it was streaming from another node) skips what it
	 * already had, and gets ids that keep its own progress until this node has caught up
	 * with it.
	 * @param shared the event every live subscriber gets
	 * @param format writes a cursor as the topic's ids
	 * @return what to send, or {@code null} to send nothing
	 */
	Followed adapt(Followed shared, java.util.function.Function<Cursor, String> format) {
		Cursor skip = this.skipUntil;
		if (skip == null) {
			return shared;
		}
		Cursor after = shared.after();
		boolean isNew = skip.isBefore(shared.event().partition(), shared.event().offset());
		Cursor merged = skip.max(after);
		this.skipUntil = after.reaches(skip) ? null : merged;
		if (!isNew) {
			return null;
		}
		return (this.skipUntil == null) ? shared : shared.withId(format.apply(merged), merged);
	}

	/**
	 * Whether the subscriber asked for an event (its types and filter).
	 * @param followed the event
	 * @return true when it is to be sent
	 */
	boolean selects(Followed followed) {
		if (this.accepts != null && followed.event() != null && !this.accepts.test(followed)) {
			return false;
		}
		return this.selection.selectsAll() || this.selection.accepts(followed.event(), followed::filterVariables);
	}

	/**
	 * Queues an event, when the subscriber asked for it.
	 * @param followed the event
	 * @return false when the queue is full and the subscriber was cut off
	 */
	boolean offer(Followed followed) {
		if (this.closed || !selects(followed)) {
			return true;
		}
		long bytes = weight(followed);
		if (this.buffer.tryReserve(bytes)) {
			if (this.queue.tryEmitNext(followed).isSuccess()) {
				return true;
			}
			this.buffer.release(bytes);
		}
		this.slow = true;
		cutOff();
		return false;
	}

	/** Ends the subscription after what is already queued. */
	void complete() {
		this.closed = true;
		this.queue.tryEmitComplete();
	}

	/** Ends the subscription now, dropping what is queued. */
	void cutOff() {
		this.closed = true;
		this.cut.tryEmitEmpty();
	}

	/**
	 * What to write, live events after the given first ones.
	 * @param first what precedes the live events (a replay)
	 * @return the events, ending in a {@link SlowSubscriberException} when the queue
	 * overflowed
	 */
	Flux<Followed> stream(Flux<Followed> first) {
		Flux<Followed> replay = (this.selection.selectsAll() && this.accepts == null) ? first
				: first.filter(this::selects);
		Flux<Followed> live = this.queue.asFlux().doOnNext((followed) -> this.buffer.release(weight(followed)));
		return Flux.concat(replay, live)
			.takeUntilOther(this.cut.asMono())
			.concatWith(Mono.defer(() -> this.slow ? Mono.error(new SlowSubscriberException()) : Mono.empty()));
	}

	/** What an event costs the connection's buffer while it waits in the queue. */
	private static long weight(Followed followed) {
		return followed.isHeartbeat() ? 0 : followed.data().length + ClientBuffer.FRAMING;
	}

	/**
	 * Runs an action for every subscription on its connection's event loop: one task per
	 * event loop rather than one cross-thread write per connection, and each queue is
	 * only ever fed from its event loop.
	 * @param subscriptions the subscriptions
	 * @param action what to run for each
	 */
	static void fanOut(Collection<Subscription> subscriptions, Consumer<Subscription> action) {
		if (subscriptions.isEmpty()) {
			return;
		}
		Map<Executor, List<Subscription>> byLoop = new HashMap<>();
		for (Subscription subscription : subscriptions) {
			byLoop.computeIfAbsent(subscription.executor(), (loop) -> new ArrayList<>()).add(subscription);
		}
		byLoop.forEach((loop, group) -> loop.execute(() -> group.forEach(action)));
	}

}
