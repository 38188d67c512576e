package dev.streamgate.core.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import jakarta.json.JsonObject;
import org.apache.kafka.clients.admin.Admin;
import reactor.core.publisher.Mono;
import reactor.kafka.sender.KafkaSender;

import dev.streamgate.core.event.IdempotencyStore;
import dev.streamgate.core.patch.JsonPatches;

/**
 * Idempotency-Key answers in the {@code idempotency} Kafka topic (compacted and deleted
 * after {@link ConfigTopics#IDEMPOTENCY_RETENTION}), read on every ingest node.
 * <p>
 * Record format: key = {@code <topic id> LF <Idempotency-Key>}, value =
 * {@code {"digest": <base64 SHA-256 of the body>, "answer": <the publisher's answer>,
 * "at": <epoch millis>}}. Memory holds at most the configured number of keys, each until
 * its window has passed since it was answered (counted from {@code at}, so a node that
 * reads the topic at start-up forgets what expired while it was down).
 */
public final class KafkaIdempotencyStore implements IdempotencyStore, AutoCloseable {

	private final KafkaConfigLog log;

	private final KafkaSender<String, byte[]> sender;

	private final Admin admin;

	private final Cache<String, Answer> answers;

	private KafkaIdempotencyStore(KafkaClients clients, Duration window, long maxKeys) {
		this.answers = Caffeine.newBuilder().maximumSize(maxKeys).expireAfter(new Expiry<String, Answer>() {
			@Override
			public long expireAfterCreate(String key, Answer answer, long currentTime) {
				return left(answer);
			}

			@Override
			public long expireAfterUpdate(String key, Answer answer, long currentTime, long currentDuration) {
				return left(answer);
			}

			@Override
			public long expireAfterRead(String key, Answer answer, long currentTime, long currentDuration) {
				return currentDuration;
			}

			private long left(Answer answer) {
				return Math.max(0, Duration.between(Instant.now(), answer.at().plus(window)).toNanos());
			}
		}).build();
		this.sender = clients.sender("idempotency");
		// Asks the log's end when a key is not known here (see readToEnd()).
		this.admin = clients.admin();
		this.log = new KafkaConfigLog(clients.properties().topicPrefix() + ConfigTopics.IDEMPOTENCY, clients,
				this.sender, this::apply);
	}

	/**
	 * Starts a store: it reads the keys of the window from Kafka in the background.
	 * @param clients the Kafka clients
	 * @param window how long an answer is remembered
	 * @param maxKeys how many answers are kept in memory at most
	 * @return the store
	 */
	public static KafkaIdempotencyStore start(KafkaClients clients, Duration window, long maxKeys) {
		KafkaIdempotencyStore store = new KafkaIdempotencyStore(clients, window, maxKeys);
		store.log.start();
		return store;
	}

	private void apply(KafkaConfigLog.Entry entry) {
		if (entry.value() == null) {
			this.answers.invalidate(entry.key());
			return;
		}
		JsonObject value = JsonPatches.read(entry.value()).asJsonObject();
		Answer answer = new Answer(Base64.getDecoder().decode(value.getString("digest")),
				JsonPatches.write(value.get("answer")),
				Instant.ofEpochMilli(value.getJsonNumber("at").longValueExact()));
		this.answers.put(entry.key(), answer);
	}

	@Override
	public Optional<Answer> get(String topicId, String key) {
		return Optional.ofNullable(this.answers.getIfPresent(key(topicId, key)));
	}

	@Override
	public boolean isCaughtUp() {
		return this.log.isCaughtUp();
	}

	@Override
	public Mono<Void> readToEnd() {
		return this.log.readToEnd(this.admin);
	}

	@Override
	public Mono<Void> save(String topicId, String key, Answer answer) {
		JsonObject value = JsonPatches.json()
			.createObjectBuilder()
			.add("digest", Base64.getEncoder().encodeToString(answer.digest()))
			.add("answer", JsonPatches.read(answer.body()))
			.add("at", answer.at().toEpochMilli())
			.build();
		return this.log.write(key(topicId, key), JsonPatches.write(value)).then();
	}

	private static String key(String topicId, String key) {
		return topicId + '\n' + key;
	}

	@Override
	public void close() {
		this.log.close();
		this.sender.close();
		this.admin.close(Duration.ofSeconds(1));
	}

}
