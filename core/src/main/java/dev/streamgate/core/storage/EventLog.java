package dev.streamgate.core.storage;

import java.util.List;
import java.util.function.Predicate;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventLogStatus;
import dev.streamgate.core.event.EventPosition;
import dev.streamgate.core.event.OutgoingEvent;
import dev.streamgate.core.event.WriterFencedException;
import dev.streamgate.core.topic.Topic;

/**
 * The events of each topic: in a shared log keyed by topic, or in a log of its own (see
 * {@link dev.streamgate.core.topic.Storage}).
 */
public interface EventLog {

	/** How many events back {@link #newest} looks at most. */
	long NEWEST_SCAN_LIMIT = 100_000;

	/**
	 * Creates the storage of a new topic's events.
	 * @param topic the new topic
	 * @return completes once created; fails with {@code conflict} while an older log of
	 * the same id is still being deleted
	 */
	Mono<Void> create(Topic topic);

	/**
	 * Applies a topic change to its storage: retention, and partitions (which only grow).
	 * @param previous the topic as it was
	 * @param topic the topic as it is now
	 * @return completes once applied
	 */
	Mono<Void> update(Topic previous, Topic topic);

	/**
	 * Bounds a topic's events in bytes as well as in time: once they hold more, the
	 * oldest go. Topics in shared storage are bounded by the shared log's size alone.
	 * @param topic the topic
	 * @param bytes the most its events hold (each partition's, on a topic of several)
	 * @return completes once the bound applies
	 */
	Mono<Void> limitBytes(Topic topic, long bytes);

	/**
	 * Deletes a topic's events.
	 * @param topic the topic
	 * @return completes once deletion has started
	 */
	Mono<Void> delete(Topic topic);

	/**
	 * Where a topic's events stand.
	 * @param topic the topic
	 * @return its figures
	 */
	Mono<EventLogStatus> status(Topic topic);

	/**
	 * Appends events, all or none: a batch of more than one is written in one
	 * transaction.
	 * @param topic the topic
	 * @param events the events, in order
	 * @return where each landed, once every in-sync replica has it; fails with
	 * {@code kafka-unavailable} when Kafka does not acknowledge in time
	 */
	Mono<List<EventPosition>> append(Topic topic, List<OutgoingEvent> events);

	/**
	 * Claims a topic for this node as its only writer across the cluster (any node's
	 * claim ends the claim of the node before it), unless this node holds it already.
	 * Until another node claims it, nothing but this node's
	 * {@link #appendAsOwner(Topic, List)} changes the topic's events. A log that one node
	 * alone writes holds it always.
	 * @param topic the topic
	 * @return true when the claim is new: the topic may have changed since this node last
	 * wrote it
	 */
	default Mono<Boolean> claim(Topic topic) {
		return Mono.just(false);
	}

	/**
	 * Appends events as the topic's claimed writer, all or none.
	 * @param topic a topic this node claimed
	 * @param events the events, in order
	 * @return where each landed; fails with {@link WriterFencedException} when another
	 * node claimed the topic since, and nothing was written
	 */
	default Mono<List<EventPosition>> appendAsOwner(Topic topic, List<OutgoingEvent> events) {
		return append(topic, events);
	}

	/**
	 * Reads retained events between two cursors, in order on each partition.
	 * @param topic the topic
	 * @param after the events after this cursor
	 * @param until up to and including this cursor
	 * @return the events; completes at {@code until}
	 */
	Flux<Event> read(Topic topic, Cursor after, Cursor until);

	/**
	 * The cursor of the newest event.
	 * @param topic the topic
	 * @return the cursor ({@code -1} on partitions without events)
	 */
	Mono<Cursor> end(Topic topic);

	/**
	 * The cursor just before the first event published at or after a time: resuming from
	 * it delivers what was published since then.
	 * @param topic the topic
	 * @param time the time
	 * @return the cursor (the end on partitions with nothing that recent)
	 */
	Mono<Cursor> at(Topic topic, java.time.Instant time);

	/**
	 * The cursor just before the oldest retained event: resuming from an older cursor
	 * would miss events that retention deleted.
	 * @param topic the topic
	 * @return the cursor
	 */
	Mono<Cursor> start(Topic topic);

	/**
	 * The newest retained event that matches, looked for backwards in growing windows (a
	 * topic in shared storage interleaves with others, so its last event is not
	 * necessarily the log's).
	 * @param topic the topic
	 * @param which the events looked for
	 * @return the newest match, empty when none is among the last
	 * {@value #NEWEST_SCAN_LIMIT} positions of each partition
	 */
	default Mono<Event> newest(Topic topic, Predicate<Event> which) {
		return newest(topic, which, NEWEST_SCAN_LIMIT);
	}

	/**
	 * The newest retained event that matches among the last positions of each partition.
	 * @param topic the topic
	 * @param which the events looked for
	 * @param limit how many positions of each partition are looked at, at most
	 * @return the newest match, empty when none is among them
	 */
	default Mono<Event> newest(Topic topic, Predicate<Event> which, long limit) {
		return Mono.zip(start(topic), end(topic))
			.flatMap((range) -> newest(topic, which, range.getT1(), range.getT2(), Math.min(64, limit), 0, limit));
	}

	private Mono<Event> newest(Topic topic, Predicate<Event> which, Cursor start, Cursor end, long window, long scanned,
			long limit) {
		long[] from = new long[end.partitions()];
		boolean more = false;
		for (int p = 0; p < from.length; p++) {
			from[p] = Math.max(start.last(p), end.last(p) - window);
			more |= from[p] > start.last(p);
		}
		Cursor after = Cursor.of(from);
		long total = scanned + window;
		boolean again = more && total < limit;
		return read(topic, after, end).filter(which)
			.reduce((a, b) -> a.publishedAt().isAfter(b.publishedAt()) ? a : b)
			.switchIfEmpty(Mono.defer(
					() -> again ? newest(topic, which, start, after, Math.min(window * 16, limit - total), total, limit)
							: Mono.empty()));
	}

}
