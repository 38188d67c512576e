package dev.streamgate.core.event;

import java.util.List;

import dev.streamgate.core.topic.Topic;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The events of each topic, one Kafka topic per streamgate topic.
 */
public interface EventLog {

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
	 * Deletes a topic's events.
	 * @param topicId the topic id
	 * @return completes once deletion has started
	 */
	Mono<Void> delete(String topicId);

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

}
