package dev.streamgate.core.storage;

import java.time.Instant;
import java.util.List;

import reactor.core.publisher.Mono;

import dev.streamgate.core.topic.Topic;

/**
 * How many events of each type were published to a topic, and when the last one was: what
 * {@code GET /api/v1/topics/{topicId}/types} lists. Counted by the nodes that publish,
 * read by every node; a count may lag the publications by a few seconds.
 */
public interface EventTypeCounts {

	/**
	 * Counts published events.
	 * @param topic the topic
	 * @param type their type
	 * @param events how many were published
	 * @param at when
	 */
	void add(Topic topic, String type, long events, Instant at);

	/**
	 * The types published to a topic (this incarnation of it).
	 * @param topic the topic
	 * @return each type with its count, ordered by type
	 */
	List<TypeCount> counts(Topic topic);

	/**
	 * Forgets a deleted topic's counts.
	 * @param topic the topic
	 * @return completes once forgotten
	 */
	Mono<Void> forget(Topic topic);

	/**
	 * One type of a topic's events.
	 *
	 * @param type the type
	 * @param count how many events of it were published
	 * @param lastSeen when the newest was published
	 */
	record TypeCount(String type, long count, Instant lastSeen) {

		/**
		 * Both counts together.
		 * @param other another count of the same type
		 * @return the sum, with the later time
		 */
		public TypeCount plus(TypeCount other) {
			return new TypeCount(this.type, this.count + other.count,
					this.lastSeen.isAfter(other.lastSeen) ? this.lastSeen : other.lastSeen);
		}

	}

}
