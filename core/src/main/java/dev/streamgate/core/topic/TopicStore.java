package dev.streamgate.core.topic;

import java.util.List;
import java.util.Optional;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The topic definitions every node shares, materialized in memory.
 * <p>
 * Reads are served from memory. A write completes only once this node's view holds it, so
 * a client that wrote through a node reads its write back from that node.
 */
public interface TopicStore {

	/**
	 * The topic with this id.
	 * @param id a topic id
	 * @return the topic, or empty
	 */
	Optional<StoredTopic> get(String id);

	/**
	 * Every topic, ordered by id.
	 * @return the topics
	 */
	List<StoredTopic> list();

	/**
	 * Stores a topic, creating or replacing the definition with its id.
	 * @param topic a complete topic
	 * @return the stored topic, once this node's view holds it
	 */
	Mono<StoredTopic> save(Topic topic);

	/**
	 * Deletes a topic definition.
	 * @param id the topic id
	 * @return completes once this node's view no longer holds it
	 */
	Mono<Void> delete(String id);

	/**
	 * Whether the view has caught up with every definition written before it started.
	 * @return true once caught up
	 */
	boolean isCaughtUp();

	/**
	 * Changes as this node applies them: a stored topic, or a deletion.
	 * @return the changes from now on
	 */
	Flux<TopicChange> changes();

	/**
	 * A change of one topic definition.
	 *
	 * @param id the topic id
	 * @param topic the new definition, or {@code null} when the topic was deleted
	 */
	record TopicChange(String id, StoredTopic topic) {

		public boolean isDeletion() {
			return this.topic == null;
		}

	}

}
