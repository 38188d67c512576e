package dev.streamgate.publish.ingest;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.function.Supplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import reactor.core.publisher.Mono;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;

/**
 * Remembers the answer to each {@code Idempotency-Key} for a while, so that a retried
 * publish returns the first answer and publishes nothing new. Concurrent retries share
 * the first attempt; a failed attempt is forgotten so that a retry can succeed. The
 * memory is this node's: retries are deduplicated when they reach the same ingest node.
 */
class IdempotencyKeys {

	private final Cache<String, Entry> answers;

	IdempotencyKeys(IngestProperties properties) {
		this.answers = Caffeine.newBuilder()
			.expireAfterWrite(properties.idempotencyWindow())
			.maximumSize(properties.idempotencyKeys())
			.build();
	}

	/**
	 * The answer to a keyed request: the first one's when the key was seen, a fresh one
	 * otherwise.
	 * @param topicId the topic
	 * @param key the Idempotency-Key header
	 * @param body the request body
	 * @param publish what the first request does
	 * @return the answer and whether it is a replay
	 */
	Mono<Answer> answer(String topicId, String key, byte[] body, Supplier<Mono<PublishResponse>> publish) {
		if (key.isEmpty() || key.length() > 255 || !key.chars().allMatch((c) -> c >= 0x21 && c <= 0x7e)) {
			throw new StreamgateException(ProblemType.BAD_REQUEST,
					"Idempotency-Key must be 1 to 255 visible ASCII characters");
		}
		String cacheKey = topicId + '\n' + key;
		byte[] digest = sha256(body);
		Entry fresh = new Entry(digest,
				Mono.defer(publish).doOnError((ex) -> this.answers.asMap().remove(cacheKey)).cache());
		Entry entry = this.answers.asMap().putIfAbsent(cacheKey, fresh);
		if (entry == null) {
			return fresh.response().map((response) -> new Answer(response, false));
		}
		if (!Arrays.equals(entry.digest(), digest)) {
			throw new StreamgateException(ProblemType.IDEMPOTENCY_KEY_REUSED, "Idempotency-Key '" + key
					+ "' was used for a different request to this topic; use a new key for a new publication");
		}
		return entry.response().map((response) -> new Answer(response, true));
	}

	private static byte[] sha256(byte[] body) {
		try {
			return MessageDigest.getInstance("SHA-256").digest(body);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private record Entry(byte[] digest, Mono<PublishResponse> response) {
	}

	record Answer(PublishResponse response, boolean replayed) {
	}

}
