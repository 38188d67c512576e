package dev.streamgate.core.storage;

import java.time.Instant;

import reactor.core.publisher.Mono;

/**
 * The answers given to publications that carried an {@code Idempotency-Key}, kept for the
 * dedupe window and shared by every ingest node, so that a retry reaching another node or
 * a restarted one publishes nothing new.
 * <p>
 * A first attempt claims its key before it publishes, and the claim the store's log
 * orders first wins, on whichever node it was made: of two first attempts sent at the
 * same moment to two nodes, one publishes and the other learns that the key is in use.
 */
public interface IdempotencyStore {

	/**
	 * Whether this node has read the answers already stored: until then it answers claims
	 * slowly, as it reads them.
	 * @return true once caught up
	 */
	boolean isCaughtUp();

	/**
	 * Claims a key for a first attempt, unless it was answered or is claimed by an
	 * attempt in flight.
	 * @param topicId the topic
	 * @param key the Idempotency-Key
	 * @param digest the SHA-256 of the request body
	 * @return the outcome; fails with {@code kafka-unavailable} when Kafka does not
	 * answer in time
	 */
	Mono<Claim> claim(String topicId, String key, byte[] digest);

	/**
	 * Stores the answer of a claim this node won, which ends the claim.
	 * @param claim the claim
	 * @param answer the answer
	 * @return completes once stored and readable on this node
	 */
	Mono<Void> answer(Claim.Won claim, Answer answer);

	/**
	 * Gives up a claim whose attempt failed, so that a retry may publish at once.
	 * @param claim the claim
	 * @return completes once stored
	 */
	Mono<Void> release(Claim.Won claim);

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

	/**
	 * What claiming a key came to.
	 */
	sealed interface Claim {

		/**
		 * The key is this attempt's to publish under; the attempt ends with
		 * {@link #answer} or {@link #release}.
		 *
		 * @param topicId the topic
		 * @param key the Idempotency-Key
		 * @param id the claim's id
		 */
		record Won(String topicId, String key, String id) implements Claim {
		}

		/**
		 * The key was answered within the window.
		 *
		 * @param answer the answer
		 */
		record Answered(Answer answer) implements Claim {
		}

		/**
		 * Another attempt claimed the key and has not answered yet.
		 *
		 * @param digest the SHA-256 of that attempt's body
		 */
		record InUse(byte[] digest) implements Claim {
		}

	}

}
