package dev.streamgate.core.event;

import dev.streamgate.core.topic.Topic;
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

}
