package dev.streamgate.publish.ingest;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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

import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.storage.IdempotencyStore;

/**
 * Remembers the answer to each {@code Idempotency-Key} for the dedupe window, so that a
 * retried publish returns the first answer and publishes nothing new, on this node and on
 * every other ingest node, before and after a restart: answers are kept in Kafka
 * ({@link IdempotencyStore}).
 * <p>
 * A first attempt claims its key in the store before it publishes, and the store's log
 * orders the claims of every node: of two first attempts sent at the same moment to two
 * nodes, one publishes and the other is answered {@code 409 idempotency-key-in-use} with
 * {@code Retry-After} (as the IETF Idempotency-Key draft asks of a request retried while
 * the first is in progress), and its retry gets the first answer. Concurrent attempts on
 * one node share the first one's answer. A failed attempt gives its claim up so that a
 * retry can publish at once.
 * <p>
 * The answer is stored after Kafka acknowledged the publication: a node that dies between
 * the two leaves a claim that holds its key for a minute, after which a retry publishes
 * again (at least once, as without a key).
 */
class IdempotencyKeys {

	private static final long UNSAVED_KEYS = 10_000;

	private static final Log logger = LogFactory.getLog(IdempotencyKeys.class);

	/** How soon a retry of a key in use is asked for. */
	private static final Duration IN_USE_RETRY = Duration.ofSeconds(1);

	private final Map<String, Entry> inFlight = new ConcurrentHashMap<>();

	/** Answers whose storing Kafka refused: this node still replays them. */
	private final Cache<String, Entry> unsaved;

	private final IdempotencyStore store;

	private final Clock clock;

	IdempotencyKeys(Duration window, IdempotencyStore store, Clock clock) {
		this.unsaved = Caffeine.newBuilder().expireAfterWrite(window).maximumSize(UNSAVED_KEYS).build();
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
			// Just started: a claim would wait until the node has read every answer.
			throw new StreamgateException(ProblemType.NOT_READY,
					"This node is still reading the Idempotency-Key answers; retry shortly")
				.withRetryAfter(Duration.ofSeconds(1));
		}
		byte[] digest = sha256(body);
		String localKey = localKey(topicId, key);
		Entry unsavedAnswer = this.unsaved.getIfPresent(localKey);
		if (unsavedAnswer != null) {
			return shared(unsavedAnswer, digest, key);
		}
		Entry fresh = new Entry(digest,
				Mono.defer(() -> attempt(topicId, key, digest, publish))
					.doFinally((signal) -> this.inFlight.remove(localKey))
					.cache());
		Entry entry = this.inFlight.putIfAbsent(localKey, fresh);
		return (entry == null) ? fresh.answer() : shared(entry, digest, key);
	}

	/** An attempt on this node with the same key that got here first. */
	private static Mono<Answer> shared(Entry entry, byte[] digest, String key) {
		checkSameRequest(entry.digest(), digest, key);
		return entry.answer().map((answer) -> new Answer(answer.response(), true));
	}

	private Mono<Answer> attempt(String topicId, String key, byte[] digest, Supplier<Mono<PublishResponse>> publish) {
		return this.store.claim(topicId, key, digest).flatMap((claim) -> {
			if (claim instanceof IdempotencyStore.Claim.Answered answered) {
				checkSameRequest(answered.answer().digest(), digest, key);
				return Mono.just(new Answer(decode(answered.answer().body()), true));
			}
			if (claim instanceof IdempotencyStore.Claim.InUse inUse) {
				checkSameRequest(inUse.digest(), digest, key);
				return Mono.error(new StreamgateException(ProblemType.IDEMPOTENCY_KEY_IN_USE,
						"A request with Idempotency-Key '" + key + "' is being published; retry to get its answer")
					.withRetryAfter(IN_USE_RETRY));
			}
			IdempotencyStore.Claim.Won won = (IdempotencyStore.Claim.Won) claim;
			return Mono.defer(publish)
				.onErrorResume((ex) -> release(won).then(Mono.error(ex)))
				.flatMap((response) -> remember(won, digest, response))
				.map((response) -> new Answer(response, false));
		});
	}

	private static String localKey(String topicId, String key) {
		return topicId + '\n' + key;
	}

	/** Gives the claim up; if Kafka refuses now, the claim expires by itself. */
	private Mono<Void> release(IdempotencyStore.Claim.Won claim) {
		return this.store.release(claim).onErrorResume((ex) -> {
			logger.debug("Idempotency-Key claim of topic " + claim.topicId() + " not released: " + ex.getMessage());
			return Mono.empty();
		});
	}

	/**
	 * Stores the answer; if Kafka refuses now, the publication stands and this node still
	 * remembers.
	 */
	private Mono<PublishResponse> remember(IdempotencyStore.Claim.Won claim, byte[] digest, PublishResponse response) {
		return this.store.answer(claim, new IdempotencyStore.Answer(digest, encode(response), this.clock.instant()))
			.onErrorResume((ex) -> {
				logger.warn("Idempotency-Key answer of topic " + claim.topicId()
						+ " not stored, remembered on this node only: " + ex.getMessage());
				this.unsaved.put(localKey(claim.topicId(), claim.key()),
						new Entry(digest, Mono.just(new Answer(response, true))));
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

	private record Entry(byte[] digest, Mono<Answer> answer) {
	}

	record Answer(PublishResponse response, boolean replayed) {
	}

}
