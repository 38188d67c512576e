package dev.streamgate.subscribe.webhook;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventLog;
import dev.streamgate.core.event.EventTail;
import dev.streamgate.core.event.MemoryBudget;
import dev.streamgate.core.event.RecentEvents;
import dev.streamgate.core.topic.Topic;

/**
 * A topic's events for the webhooks of it on this node: it follows the topic through the
 * node's one event tail and keeps the newest events, so that webhooks that keep up read
 * from memory, whatever their number; a webhook that fell further behind reads its gap
 * from Kafka.
 */
final class TopicFeed implements EventTail.Listener {

	private static final Log logger = LogFactory.getLog(TopicFeed.class);

	/** A waiting reader looks again this often even when woken by nothing. */
	private static final Duration RECHECK = Duration.ofSeconds(10);

	private final Topic topic;

	private final EventLog log;

	private final int recentCount;

	private final long recentBytes;

	private final MemoryBudget budget;

	private RecentEvents<Event> recent;

	private final List<MonoSink<Void>> waiting = new ArrayList<>();

	private final Sinks.One<Boolean> ready = Sinks.one();

	private AutoCloseable following;

	/** The envelope last built from an event, shared by the webhooks that deliver it. */
	private volatile Envelope lastEnvelope;

	private Cursor position;

	private boolean closed;

	int users;

	TopicFeed(Topic topic, EventLog log, int recentCount, long recentBytes, MemoryBudget budget) {
		this.topic = topic;
		this.log = log;
		this.recentCount = recentCount;
		this.recentBytes = recentBytes;
		this.budget = budget;
	}

	Topic topic() {
		return this.topic;
	}

	void start(EventTail tail) {
		this.following = tail.follow(this.topic, this);
	}

	@Override
	public synchronized void onStart(Cursor start) {
		this.position = start;
		this.recent = new RecentEvents<>(this.recentCount, this.recentBytes, this.budget, start);
		this.ready.tryEmitValue(true);
	}

	@Override
	public void onEvent(Event event) {
		List<MonoSink<Void>> woken;
		synchronized (this) {
			if (this.closed) {
				// The tail may still deliver until it has heard of the stop: keep
				// nothing.
				return;
			}
			this.position = this.position.after(event.partition(), event.offset());
			this.recent.add(event, event.data().length, this.position);
			woken = new ArrayList<>(this.waiting);
			this.waiting.clear();
		}
		woken.forEach(MonoSink::success);
	}

	/**
	 * The next events after a cursor, in order on each partition; waits while there are
	 * none.
	 * @param after the cursor of the last event handled
	 * @param max how many events at most
	 * @return the events, or an empty list when it is time to look again
	 */
	Mono<List<Event>> next(Cursor after, int max) {
		return this.ready.asMono().then(Mono.defer(() -> {
			Cursor until;
			synchronized (this) {
				if (after.reaches(this.position)) {
					return waitForMore(after).thenReturn(List.<Event>of());
				}
				if (after.reaches(this.recent.start())) {
					List<Event> events = new ArrayList<>(Math.min(max, this.recent.size()));
					for (Event event : this.recent.items()) {
						if (after.isBefore(event.partition(), event.offset())) {
							events.add(event);
							if (events.size() == max) {
								break;
							}
						}
					}
					return Mono.just(events);
				}
				until = this.position;
			}
			// Behind the events in memory: read the gap from Kafka.
			return this.log.read(this.topic, after, until).take(max).collectList();
		}));
	}

	/**
	 * Completes once there is an event after the cursor. The check is made again when the
	 * waiter registers, under the lock the tail takes to add an event: an event that came
	 * in between would otherwise wake nobody, and the reader would sleep until the
	 * recheck.
	 */
	Mono<Void> waitForMore(Cursor after) {
		return Mono.<Void>create((sink) -> {
			synchronized (this) {
				if (!after.reaches(this.position)) {
					sink.success();
					return;
				}
				this.waiting.add(sink);
			}
			sink.onDispose(() -> {
				synchronized (this) {
					this.waiting.remove(sink);
				}
			});
		})
			.timeout(RECHECK, Mono.empty())
			// Woken on the tail's thread: the deliveries run elsewhere.
			.publishOn(Schedulers.parallel());
	}

	/**
	 * The envelope of an event, built once for all the webhooks that deliver the same
	 * event under the same cursor and type.
	 * @param event the event, as this feed handed it out
	 * @param type the delivery type
	 * @param cursor the cursor after the event
	 * @param build builds the envelope when it is not at hand
	 * @return the envelope
	 */
	byte[] envelope(Event event, String type, String cursor, java.util.function.Supplier<byte[]> build) {
		Envelope cached = this.lastEnvelope;
		if (cached != null && cached.event() == event && cached.type().equals(type) && cached.cursor().equals(cursor)) {
			return cached.body();
		}
		byte[] body = build.get();
		this.lastEnvelope = new Envelope(event, type, cursor, body);
		return body;
	}

	void close() {
		synchronized (this) {
			this.closed = true;
			if (this.recent != null) {
				this.recent.clear();
			}
		}
		try {
			if (this.following != null) {
				this.following.close();
			}
		}
		catch (Exception ex) {
			logger.warn("Cannot stop following " + this.topic.id(), ex);
		}
	}

	private record Envelope(Event event, String type, String cursor, byte[] body) {
	}

}
