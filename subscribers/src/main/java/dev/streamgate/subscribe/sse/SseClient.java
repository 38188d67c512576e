package dev.streamgate.subscribe.sse;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.topic.SubscriptionMode;

/**
 * One open stream: a bounded queue of frames that the connection drains. A client whose
 * queue is full is cut off at once, without waiting for the queue to drain, so that it
 * neither slows the others nor holds memory.
 */
final class SseClient {

	private final SubscriptionMode mode;

	private final Sinks.Many<Frame> frames;

	private final Sinks.Empty<Void> cut = Sinks.empty();

	private volatile boolean closed;

	/** Events at or before this cursor are not sent; null once the client is live. */
	private Cursor skipUntil;

	private final Executor executor;

	SseClient(SubscriptionMode mode, int queueSize, Cursor skipUntil, Executor executor) {
		this.mode = mode;
		this.executor = executor;
		// Bounded, and allocated as it fills: an idle stream's queue costs a few bytes,
		// not
		// an array of queueSize slots (4 KiB per connection at the default 1024).
		this.frames = Sinks.many().unicast().onBackpressureBuffer(new LinkedBlockingQueue<>(queueSize));
		this.skipUntil = skipUntil;
	}

	SubscriptionMode mode() {
		return this.mode;
	}

	/**
	 * Where this client's frames are offered: the event loop of its connection.
	 * @return the executor
	 */
	Executor executor() {
		return this.executor;
	}

	/**
	 * Adapts a shared frame to this client. A client that resumed from a cursor ahead of
	 * this node on some partition (it was streaming from another node) skips what it
	 * already had, and gets ids that keep its own progress until this node has caught up
	 * with it.
	 * @param event the event
	 * @param shared the frame every live client gets
	 * @param after this node's cursor after the event
	 * @param encode encodes the event with another id
	 * @return the frame to send, or {@code null} to send nothing
	 */
	Frame adapt(Event event, Frame shared, Cursor after, java.util.function.Function<Cursor, Frame> encode) {
		Cursor skip = this.skipUntil;
		if (skip == null) {
			return shared;
		}
		boolean isNew = skip.isBefore(event.partition(), event.offset());
		Cursor merged = skip.max(after);
		this.skipUntil = after.reaches(skip) ? null : merged;
		if (!isNew) {
			return null;
		}
		return (this.skipUntil == null) ? shared : encode.apply(merged);
	}

	/**
	 * Queues a frame.
	 * @param frame the frame
	 * @return false when the queue is full and the client was cut off
	 */
	boolean offer(Frame frame) {
		if (this.closed) {
			return true;
		}
		if (this.frames.tryEmitNext(frame).isSuccess()) {
			return true;
		}
		cutOff();
		return false;
	}

	/** Ends the stream after the frames already queued. */
	void complete() {
		this.closed = true;
		this.frames.tryEmitComplete();
	}

	/** Ends the stream now, dropping what is queued. */
	void cutOff() {
		this.closed = true;
		this.cut.tryEmitEmpty();
	}

	boolean isClosed() {
		return this.closed;
	}

	/**
	 * The frames to write, live ones after the given first ones.
	 * @param first frames that precede the live ones (a replay)
	 * @return the frames
	 */
	Flux<Frame> stream(Flux<Frame> first) {
		return Flux.concat(first, this.frames.asFlux()).takeUntilOther(this.cut.asMono());
	}

}
