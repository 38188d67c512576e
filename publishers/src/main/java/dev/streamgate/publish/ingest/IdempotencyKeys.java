package dev.streamgate.publish.ingest;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;

import dev.streamgate.core.event.IdempotencyStore;
import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;

/**
 * Remembers the answer to each {@code Idempotency-Key} for the dedupe window, so that a
 * retried publish returns the first answer and publishes nothing new, on this node and on
 * every other ingest node, before and after a restart: answers are kept in Kafka
 * ({@link IdempotencyStore}). Concurrent retries on one node share the first attempt; a
 * failed attempt is forgotten so that a retry can succeed.
 * <p>
 * A node learns another node's answers by reading them from Kafka, a few milliseconds
 * after they were stored; so before it publishes under a key it does not know, it reads
 * them to their current end. A retry sent after the first answer came back therefore
 * finds that answer on any node; two first attempts sent at the same moment to two nodes
 * may both publish (at least once).
 * <p>
 * The answer is stored after Kafka acknowledged the publication: a node that dies between
 * the two leaves the key unknown, and a retry publishes again (at least once, as without
 * a key).
 */
class IdempotencyKeys {

	private static final Log logger = LogFactory.getLog(IdempotencyKeys.class);

	private final Cache<String, Entry> inFlight;

	private final IdempotencyStore store;

	private final Clock clock;

	IdempotencyKeys(IngestProperties properties, IdempotencyStore store, Clock clock) {
		this.inFlight = Caffeine.newBuilder()
			.expireAfterWrite(properties.idempotencyWindow())
			.maximumSize(properties.idempotencyKeys())
			.build();
		this.store = store;
		this.clock = clock;
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
		if (!this.store.isCaughtUp()) {
			// Just started: the key may have been answered before; publishing now could
			// publish twice.
			throw new StreamgateException(ProblemType.NOT_READY,
					"This node is still reading the Idempotency-Key answers; retry shortly")
				.withRetryAfter(Duration.ofSeconds(1));
		}
		byte[] digest = sha256(body);
		Optional<Mono<Answer>> known = known(topicId, key, digest);
		if (known.isPresent()) {
			return known.get();
		}
		// Another node may have answered a moment ago, its answer not read here yet: read
		// the answers to their current end before publishing.
		return this.store.readToEnd()
			.then(Mono
				.defer(() -> known(topicId, key, digest).orElseGet(() -> firstAttempt(topicId, key, digest, publish))));
	}

	/**
	 * The answer this node knows for a key: stored, or being given by an attempt in
	 * flight here.
	 */
	private Optional<Mono<Answer>> known(String topicId, String key, byte[] digest) {
		Optional<IdempotencyStore.Answer> stored = this.store.get(topicId, key);
		if (stored.isPresent()) {
			checkSameRequest(stored.get().digest(), digest, key);
			return Optional.of(Mono.just(new Answer(decode(stored.get().body()), true)));
		}
		Entry entry = this.inFlight.getIfPresent(cacheKey(topicId, key));
		if (entry == null) {
			return Optional.empty();
		}
		checkSameRequest(entry.digest(), digest, key);
		return Optional.of(entry.response().map((response) -> new Answer(response, true)));
	}

	/**
	 * Publishes under a key nobody answered; a concurrent attempt on this node that got
	 * here first is shared instead.
	 */
	private Mono<Answer> firstAttempt(String topicId, String key, byte[] digest,
			Supplier<Mono<PublishResponse>> publish) {
		String cacheKey = cacheKey(topicId, key);
		Entry fresh = new Entry(digest,
				Mono.defer(publish)
					.flatMap((response) -> remember(topicId, key, digest, response))
					.doOnError((ex) -> this.inFlight.asMap().remove(cacheKey))
					.cache());
		Entry entry = this.inFlight.asMap().putIfAbsent(cacheKey, fresh);
		if (entry == null) {
			return fresh.response().map((response) -> new Answer(response, false));
		}
		checkSameRequest(entry.digest(), digest, key);
		return entry.response().map((response) -> new Answer(response, true));
	}

	private static String cacheKey(String topicId, String key) {
		return topicId + '\n' + key;
	}

	/**
	 * Stores the answer; if Kafka refuses now, the publication stands and this node still
	 * remembers.
	 */
	private Mono<PublishResponse> remember(String topicId, String key, byte[] digest, PublishResponse response) {
		return this.store
			.save(topicId, key, new IdempotencyStore.Answer(digest, encode(response), this.clock.instant()))
			.onErrorResume((ex) -> {
				logger.warn("Idempotency-Key answer of topic " + topicId + " not stored, remembered on this node only: "
						+ ex.getMessage());
				return Mono.empty();
			})
			.thenReturn(response);
	}

	private static void checkSameRequest(byte[] first, byte[] digest, String key) {
		if (!Arrays.equals(first, digest)) {
			throw new StreamgateException(ProblemType.IDEMPOTENCY_KEY_REUSED, "Idempotency-Key '" + key
					+ "' was used for a different request to this topic; use a new key for a new publication");
		}
	}

	static byte[] encode(PublishResponse response) {
		JsonObjectBuilder json = JsonPatches.json()
			.createObjectBuilder()
			.add("id", response.id())
			.add("changed", response.changed());
		if (response.ids() != null) {
			JsonArrayBuilder ids = JsonPatches.json().createArrayBuilder();
			response.ids().forEach(ids::add);
			json.add("ids", ids);
		}
		return JsonPatches.write(json.build());
	}

	static PublishResponse decode(byte[] body) {
		JsonObject json = JsonPatches.read(body).asJsonObject();
		List<String> ids = json.containsKey("ids")
				? json.getJsonArray("ids").getValuesAs(JsonString.class).stream().map(JsonString::getString).toList()
				: null;
		return new PublishResponse(json.getString("id"), json.getBoolean("changed"), ids);
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
