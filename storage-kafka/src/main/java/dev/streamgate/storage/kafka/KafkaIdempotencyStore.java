package dev.streamgate.storage.kafka;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import jakarta.json.JsonObject;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.storage.IdempotencyStore;

/**
 * Idempotency-Key claims and answers in the {@code idempotency} Kafka topic (compacted,
 * and deleted after {@link ConfigTopics#IDEMPOTENCY_RETENTION}), read on every ingest
 * node.
 * <p>
 * Records: an answer's key is {@code <topic id> LF <Idempotency-Key>}, its value
 * {@code {"digest": <base64 SHA-256 of the body>, "answer": <the publisher's answer>,
 * "at": <epoch millis>}}. A claim's key is the same followed by {@code LF claim}, its
 * value {@code {"claim": <id>, "digest": ...}}, or {@code {"release": <id>}} when its
 * attempt failed. Both go to the answer key's partition, so every node reads a key's
 * claims and answer in one order: a claim wins when no answer and no live claim precede
 * it, and a claim lives until its answer, its release, or {@link #CLAIM_TIMEOUT} after it
 * (by the records' timestamps, so that every node decides alike). Claims and answers have
 * keys of their own, so that compaction never leaves a claim standing in place of an
 * answer.
 * <p>
 * Memory: every answer of the window in {@link AnswerIndex} (a fingerprint and the
 * record's place, 27 to 53 bytes a key, at most {@code maxIndexBytes}), the most recent
 * answers whole (at most {@link #RECENT_BYTES}), and the claims in flight. An older
 * answer is read back from Kafka when a retry asks for it. The window is counted from
 * {@code at}, so a node that reads the topic at start-up forgets what expired while it
 * was down.
 */
public final class KafkaIdempotencyStore implements IdempotencyStore, AutoCloseable {

	/**
	 * How long a claim without an answer holds its key: longer than any publication
	 * takes, so that only a node that died while publishing leaves one to expire.
	 */
	static final Duration CLAIM_TIMEOUT = Duration.ofMinutes(1);

	/** How many bytes of recent answers are kept whole. */
	static final long RECENT_BYTES = 16 * 1024 * 1024;

	private static final int MAX_LINGERING_CLAIMS = 10_000;

	private static final String CLAIM_SUFFIX = "\nclaim";

	private static final Log logger = LogFactory.getLog(KafkaIdempotencyStore.class);

	private final KafkaConfigLog log;

	private final KafkaWriter writer;

	private final KafkaClients clients;

	private final String topic;

	private final Duration window;

	private final AnswerIndex index;

	private final Cache<String, Answer> recent;

	private final Map<String, Pending> claims = new HashMap<>();

	private final Object fetchLock = new Object();

	/** Guarded by {@link #fetchLock}. */
	private KafkaConsumer<String, byte[]> fetcher;

	private long reportedForgotten;

	private final Duration claimTimeout;

	private KafkaIdempotencyStore(KafkaClients clients, Duration window, long maxIndexBytes, long recentBytes,
			Duration claimTimeout) {
		this.clients = clients;
		this.window = window;
		this.claimTimeout = claimTimeout;
		this.index = new AnswerIndex(maxIndexBytes);
		this.recent = Caffeine.newBuilder()
			.maximumWeight(recentBytes)
			.weigher((String key, Answer answer) -> 2 * key.length() + answer.body().length + 96)
			.build();
		this.writer = clients.writer("idempotency");
		this.topic = clients.properties().topicPrefix() + ConfigTopics.IDEMPOTENCY;
		this.log = new KafkaConfigLog(this.topic, clients, this.writer, this::apply);
	}

	/**
	 * Starts a store: it reads the claims and answers of the window from Kafka in the
	 * background.
	 * @param clients the Kafka clients
	 * @param window how long an answer is remembered
	 * @param maxIndexBytes the most memory the index of answers may take
	 * @return the store
	 */
	public static KafkaIdempotencyStore start(KafkaClients clients, Duration window, long maxIndexBytes) {
		return start(clients, window, maxIndexBytes, RECENT_BYTES, CLAIM_TIMEOUT);
	}

	static KafkaIdempotencyStore start(KafkaClients clients, Duration window, long maxIndexBytes, long recentBytes,
			Duration claimTimeout) {
		KafkaIdempotencyStore store = new KafkaIdempotencyStore(clients, window, maxIndexBytes, recentBytes,
				claimTimeout);
		store.log.start();
		return store;
	}

	private void apply(KafkaConfigLog.Entry entry) {
		if (entry.key().endsWith(CLAIM_SUFFIX)) {
			applyClaim(entry.key().substring(0, entry.key().length() - CLAIM_SUFFIX.length()), entry);
			return;
		}
		long fingerprint = fingerprint(entry.key());
		if (entry.value() == null) {
			synchronized (this) {
				this.index.remove(fingerprint);
			}
			this.recent.invalidate(entry.key());
			return;
		}
		Answer answer = decodeAnswer(entry.value());
		long forgotten;
		synchronized (this) {
			this.claims.remove(entry.key());
			int expired = expiredSecond();
			int second = (int) answer.at().getEpochSecond();
			if (second <= expired) {
				return;
			}
			this.index.put(fingerprint, AnswerIndex.position(entry.partition(), entry.offset()), second, expired);
			forgotten = this.index.forgottenEarly();
		}
		this.recent.put(entry.key(), answer);
		reportForgotten(forgotten);
	}

	private void applyClaim(String key, KafkaConfigLog.Entry entry) {
		if (entry.value() == null) {
			return;
		}
		JsonObject value = JsonPatches.read(entry.value()).asJsonObject();
		synchronized (this) {
			Pending pending = this.claims.get(key);
			if (value.containsKey("release")) {
				if (pending != null && pending.id().equals(value.getString("release"))) {
					this.claims.remove(key);
				}
				return;
			}
			if (this.index.get(fingerprint(key), expiredSecond()) >= 0) {
				// Answered before this claim was made: the claim lost.
				return;
			}
			if (pending != null && entry.timestamp().isBefore(pending.at().plus(this.claimTimeout))) {
				return;
			}
			if (this.claims.size() >= MAX_LINGERING_CLAIMS) {
				// Claims of attempts that neither answered nor released (a node died).
				this.claims.values().removeIf((claim) -> entry.timestamp().isAfter(claim.at().plus(this.claimTimeout)));
			}
			this.claims.put(key, new Pending(value.getString("claim"),
					Base64.getDecoder().decode(value.getString("digest")), entry.timestamp()));
		}
	}

	@Override
	public boolean isCaughtUp() {
		return this.log.isCaughtUp();
	}

	@Override
	public Mono<Claim> claim(String topicId, String key, byte[] digest) {
		String answerKey = key(topicId, key);
		// An answer known here is final; a claim known here may have been answered or
		// released since, so only the log decides.
		return answered(answerKey).switchIfEmpty(Mono.defer(() -> {
			String id = UUID.randomUUID().toString();
			byte[] claim = JsonPatches.write(JsonPatches.json()
				.createObjectBuilder()
				.add("claim", id)
				.add("digest", Base64.getEncoder().encodeToString(digest))
				.build());
			// Read back: every claim and answer the log holds before this one has been
			// applied, so the claims say who won.
			return this.log.writeBeside(answerKey + CLAIM_SUFFIX, claim, answerKey)
				.then(Mono.defer(() -> afterClaim(topicId, key, id, digest)));
		}));
	}

	private Mono<Claim> afterClaim(String topicId, String key, String id, byte[] digest) {
		String answerKey = key(topicId, key);
		Pending pending;
		synchronized (this) {
			pending = this.claims.get(answerKey);
		}
		if (pending != null && pending.id().equals(id)) {
			return Mono.just(new Claim.Won(topicId, key, id));
		}
		// Answered before this claim, or claimed by a live attempt; if neither any more
		// (released or expired since), the key is free for the retry.
		return answered(answerKey)
			.switchIfEmpty(Mono.fromSupplier(() -> new Claim.InUse((pending != null) ? pending.digest() : digest)));
	}

	/**
	 * The answer this node knows for a key, read back from Kafka if it is not among the
	 * recent ones.
	 */
	private Mono<Claim> answered(String answerKey) {
		long position;
		synchronized (this) {
			position = this.index.get(fingerprint(answerKey), expiredSecond());
		}
		if (position < 0) {
			return Mono.empty();
		}
		Answer recentAnswer = this.recent.getIfPresent(answerKey);
		if (recentAnswer != null) {
			return Mono.just(new Claim.Answered(recentAnswer));
		}
		return Mono.fromCallable(() -> fetch(answerKey, position))
			.subscribeOn(Schedulers.boundedElastic())
			.flatMap((answer) -> (answer != null) ? Mono.just(new Claim.Answered(answer)) : Mono.empty());
	}

	/**
	 * Reads an answer back from Kafka: one record at a known place, with a consumer kept
	 * for it (retries of answers older than the recent ones are rare).
	 * @return the answer, or null when the record there is another key's (a fingerprint
	 * shared by two keys) or is gone
	 */
	private Answer fetch(String answerKey, long position) {
		synchronized (this.fetchLock) {
			return fetchLocked(answerKey, position);
		}
	}

	private Answer fetchLocked(String answerKey, long position) {
		if (this.fetcher == null) {
			this.fetcher = new KafkaConsumer<>(this.clients.readConsumer("idempotency-fetch"), new StringDeserializer(),
					new ByteArrayDeserializer());
		}
		TopicPartition partition = new TopicPartition(this.topic, AnswerIndex.partition(position));
		long offset = AnswerIndex.offset(position);
		this.fetcher.assign(List.of(partition));
		this.fetcher.seek(partition, offset);
		long deadline = System.nanoTime() + this.clients.properties().writeTimeout().toNanos();
		while (System.nanoTime() < deadline) {
			for (ConsumerRecord<String, byte[]> record : this.fetcher.poll(Duration.ofMillis(200))) {
				if (record.offset() >= offset) {
					Answer answer = (record.offset() == offset && answerKey.equals(record.key())
							&& record.value() != null) ? decodeAnswer(record.value()) : null;
					if (answer != null) {
						this.recent.put(answerKey, answer);
					}
					return answer;
				}
			}
		}
		throw StreamgateException.kafkaUnavailable(
				new org.apache.kafka.common.errors.TimeoutException("Reading an Idempotency-Key answer back"));
	}

	@Override
	public Mono<Void> answer(Claim.Won claim, Answer answer) {
		JsonObject value = JsonPatches.json()
			.createObjectBuilder()
			.add("digest", Base64.getEncoder().encodeToString(answer.digest()))
			.add("answer", JsonPatches.read(answer.body()))
			.add("at", answer.at().toEpochMilli())
			.build();
		String answerKey = key(claim.topicId(), claim.key());
		return this.log.writeBeside(answerKey, JsonPatches.write(value), answerKey).then();
	}

	@Override
	public Mono<Void> release(Claim.Won claim) {
		String answerKey = key(claim.topicId(), claim.key());
		byte[] release = JsonPatches.write(JsonPatches.json().createObjectBuilder().add("release", claim.id()).build());
		return this.log.writeBeside(answerKey + CLAIM_SUFFIX, release, answerKey).then();
	}

	/**
	 * @return how many keys the index holds
	 */
	public synchronized int indexedKeys() {
		return this.index.size();
	}

	/**
	 * @return the bytes the index takes
	 */
	public synchronized long indexBytes() {
		return this.index.bytes();
	}

	private void reportForgotten(long forgotten) {
		if (forgotten > this.reportedForgotten) {
			logger.warn("The Idempotency-Key index is full (streamgate.ingest.idempotency-memory): " + forgotten
					+ " keys forgotten before their window had passed; give it more memory");
			this.reportedForgotten = forgotten * 2;
		}
	}

	private int expiredSecond() {
		return (int) Instant.now().minus(this.window).getEpochSecond();
	}

	private static Answer decodeAnswer(byte[] record) {
		JsonObject value = JsonPatches.read(record).asJsonObject();
		return new Answer(Base64.getDecoder().decode(value.getString("digest")), JsonPatches.write(value.get("answer")),
				Instant.ofEpochMilli(value.getJsonNumber("at").longValueExact()));
	}

	private static long fingerprint(String answerKey) {
		try {
			return AnswerIndex
				.fingerprint(MessageDigest.getInstance("SHA-256").digest(answerKey.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String key(String topicId, String key) {
		return topicId + '\n' + key;
	}

	@Override
	public void close() {
		this.log.close();
		this.writer.close();
		synchronized (this.fetchLock) {
			if (this.fetcher != null) {
				this.fetcher.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ZERO));
			}
		}
	}

	/** A claim in flight, as the log ordered it. */
	private record Pending(String id, byte[] digest, Instant at) {
	}

}
