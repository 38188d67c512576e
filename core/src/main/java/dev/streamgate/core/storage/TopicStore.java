package dev.streamgate.core.storage;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.topic.TopicValidator;

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
	 * The topic with this id, for a request about it.
	 * @param id a topic id from a request
	 * @return the topic
	 * @throws StreamgateException {@code invalid-topic-id}, {@code not-ready} while the
	 * definitions are still being read, or {@code topic-not-found}
	 */
	default StoredTopic require(String id) {
		if (!TopicValidator.isValidId(id)) {
			throw new StreamgateException(ProblemType.INVALID_TOPIC_ID,
					"'" + id + "' is not a topic id: ids match " + TopicValidator.ID.pattern());
		}
		if (!isCaughtUp()) {
			throw new StreamgateException(ProblemType.NOT_READY,
					"This node is still reading the topic definitions; retry shortly")
				.withRetryAfter(Duration.ofSeconds(2));
		}
		return get(id).orElseThrow(() -> new StreamgateException(ProblemType.TOPIC_NOT_FOUND, "No topic '" + id + "'"));
	}

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
