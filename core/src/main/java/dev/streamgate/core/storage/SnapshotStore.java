package dev.streamgate.core.storage;

import java.util.Optional;

import jakarta.json.JsonStructure;
import reactor.core.publisher.Mono;

import dev.streamgate.core.topic.Topic;

/**
 * Checkpoints of snapshot topics: the current document now and then, so that a node
 * rebuilds it from the checkpoint and the few patches after it instead of from the
 * topic's beginning.
 */
public interface SnapshotStore {

	/**
	 * The newest checkpoint of a topic.
	 * @param topicId the topic id
	 * @return the checkpoint, if any
	 */
	Optional<Checkpoint> get(String topicId);

	/**
	 * Whether a topic has a checkpoint, without reading its document.
	 * @param topicId the topic id
	 * @return true when {@link #get} would find one
	 */
	default boolean has(String topicId) {
		return get(topicId).isPresent();
	}

	/**
	 * Stores a checkpoint.
	 * @param topicId the topic id
	 * @param checkpoint the checkpoint
	 * @return completes once stored
	 */
	Mono<Void> save(String topicId, Checkpoint checkpoint);

	/**
	 * Forgets a topic's checkpoint.
	 * @param topicId the topic id
	 * @return completes once forgotten
	 */
	Mono<Void> delete(String topicId);

	/**
	 * The document as it was after one event.
	 *
	 * @param offset the offset of the last event applied
	 * @param document the document
	 * @param incarnation the incarnation of the topic it belongs to ({@code null} in
	 * checkpoints written before incarnations were recorded)
	 */
	record Checkpoint(long offset, JsonStructure document, String incarnation) {

		/**
		 * Whether this checkpoint is one of the given topic's, not of an earlier topic of
		 * the same id: offsets of a shared log keep growing across incarnations.
		 * @param topic the topic
		 * @return true when it belongs to the topic
		 */
		public boolean belongsTo(Topic topic) {
			return (this.incarnation != null) ? this.incarnation.equals(topic.incarnation()) : !topic.shared();
		}

	}

}
