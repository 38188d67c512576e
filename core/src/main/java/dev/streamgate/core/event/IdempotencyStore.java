package dev.streamgate.core.event;

import java.time.Instant;
import java.util.Optional;

import reactor.core.publisher.Mono;

/**
 * The answers given to publications that carried an {@code Idempotency-Key}, kept for the
 * dedupe window and shared by every ingest node, so that a retry reaching another node or
 * a restarted one publishes nothing new.
 */
public interface IdempotencyStore {

	/**
	 * The answer remembered for a key.
	 * @param topicId the topic
	 * @param key the Idempotency-Key
	 * @return the answer, empty when the key is unknown or its window has passed
	 */
	Optional<Answer> get(String topicId, String key);

	/**
	 * Whether this node has read the answers already stored: until then a key it does not
	 * know may have been answered before.
	 * @return true once caught up
	 */
	boolean isCaughtUp();

	/**
	 * Waits until this node knows every answer stored, on any node, before the call: a
	 * key it then does not know was not answered before the call.
	 * @return completes once read; fails with {@code kafka-unavailable} when Kafka does
	 * not answer in time
	 */
	Mono<Void> readToEnd();

	/**
	 * Remembers the answer to a key.
	 * @param topicId the topic
	 * @param key the Idempotency-Key
	 * @param answer the answer
	 * @return completes once stored and readable on this node
	 */
	Mono<Void> save(String topicId, String key, Answer answer);

	/**
	 * An answer as stored.
	 *
	 * @param digest the SHA-256 of the request body, to tell a retry from another request
	 * under the same key
	 * @param body the answer, as the publisher encoded it
	 * @param at when it was given
	 */
	record Answer(byte[] digest, byte[] body, Instant at) {
	}

}
