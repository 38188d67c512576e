package dev.streamgate.publish.ingest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import dev.streamgate.core.event.IdempotencyStore;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;

import static org.assertj.core.api.Assertions.assertThat;

class IdempotencyKeysTests {

	private static final byte[] BODY = "{\"order\":1}".getBytes(StandardCharsets.UTF_8);

	private final LaggingStore store = new LaggingStore();

	private final IdempotencyKeys keys = new IdempotencyKeys(new IngestProperties(DataSize.ofMegabytes(1),
			Duration.ofHours(24), 100, DataSize.ofMegabytes(16), Duration.ZERO), this.store,
			Clock.fixed(Instant.parse("2026-11-29T00:00:00Z"), ZoneOffset.UTC));

	private final AtomicInteger published = new AtomicInteger();

	@Test
	void aKeyAnsweredOnAnotherNodeButNotReadHereYetIsReplayedNotPublished() {
		// Another node answered k1; this node's reader has not applied it yet.
		this.store.answeredElsewhere("orders", "k1", IdempotencyKeys.encode(new PublishResponse("7", true, null)));
		StepVerifier.create(this.keys.answer("orders", "k1", BODY, this::publish)).assertNext((answer) -> {
			assertThat(answer.replayed()).isTrue();
			assertThat(answer.response().id()).isEqualTo("7");
		}).verifyComplete();
		assertThat(this.published).hasValue(0);
		assertThat(this.store.reads).hasValue(1);
	}

	@Test
	void aKeyNobodyAnsweredIsPublishedOnceThenReplayedWithoutAskingKafkaAgain() {
		StepVerifier.create(this.keys.answer("orders", "k1", BODY, this::publish))
			.assertNext((answer) -> assertThat(answer.replayed()).isFalse())
			.verifyComplete();
		StepVerifier.create(this.keys.answer("orders", "k1", BODY, this::publish)).assertNext((answer) -> {
			assertThat(answer.replayed()).isTrue();
			assertThat(answer.response().id()).isEqualTo("1");
		}).verifyComplete();
		assertThat(this.published).hasValue(1);
		assertThat(this.store.reads).hasValue(1);
	}

	@Test
	void aRetryWhileTheFirstAttemptIsInFlightSharesItsAnswer() {
		Sinks.One<PublishResponse> kafka = Sinks.one();
		Mono<IdempotencyKeys.Answer> first = this.keys.answer("orders", "k1", BODY, () -> {
			this.published.incrementAndGet();
			return kafka.asMono();
		}).cache();
		first.subscribe();
		Mono<IdempotencyKeys.Answer> retry = this.keys.answer("orders", "k1", BODY, this::publish);
		kafka.tryEmitValue(new PublishResponse("41", true, null));
		StepVerifier.create(retry)
			.assertNext((answer) -> assertThat(answer)
				.isEqualTo(new IdempotencyKeys.Answer(new PublishResponse("41", true, null), true)))
			.verifyComplete();
		assertThat(first.block().replayed()).isFalse();
		assertThat(this.published).hasValue(1);
	}

	@Test
	void theSameKeyWithAnotherBodyAnsweredElsewhereIsRefused() {
		this.store.answeredElsewhere("orders", "k1", IdempotencyKeys.encode(new PublishResponse("7", true, null)));
		StepVerifier
			.create(this.keys.answer("orders", "k1", "{\"order\":2}".getBytes(StandardCharsets.UTF_8), this::publish))
			.verifyErrorSatisfies((ex) -> assertThat(((StreamgateException) ex).problemType())
				.isEqualTo(ProblemType.IDEMPOTENCY_KEY_REUSED));
		assertThat(this.published).hasValue(0);
	}

	@Test
	void whenKafkaCannotSayWhatWasAnsweredNothingIsPublished() {
		this.store.unreachable = true;
		StepVerifier.create(this.keys.answer("orders", "k1", BODY, this::publish))
			.verifyErrorSatisfies((ex) -> assertThat(((StreamgateException) ex).problemType())
				.isEqualTo(ProblemType.KAFKA_UNAVAILABLE));
		assertThat(this.published).hasValue(0);
		this.store.unreachable = false;
		StepVerifier.create(this.keys.answer("orders", "k1", BODY, this::publish))
			.assertNext((answer) -> assertThat(answer.replayed()).isFalse())
			.verifyComplete();
		assertThat(this.published).hasValue(1);
	}

	private Mono<PublishResponse> publish() {
		return Mono
			.fromSupplier(() -> new PublishResponse(Integer.toString(this.published.incrementAndGet()), true, null));
	}

	/**
	 * Answers in memory, as a node sees them: its own at once, another node's only once
	 * it has read the log to its end.
	 */
	private static final class LaggingStore implements IdempotencyStore {

		private final Map<String, Answer> known = new ConcurrentHashMap<>();

		private final Map<String, Answer> notReadYet = new ConcurrentHashMap<>();

		private final AtomicInteger reads = new AtomicInteger();

		private volatile boolean unreachable;

		void answeredElsewhere(String topicId, String key, byte[] body) {
			this.notReadYet.put(topicId + '\n' + key, new Answer(sha256(BODY), body, Instant.now()));
		}

		@Override
		public Optional<Answer> get(String topicId, String key) {
			return Optional.ofNullable(this.known.get(topicId + '\n' + key));
		}

		@Override
		public boolean isCaughtUp() {
			return true;
		}

		@Override
		public Mono<Void> readToEnd() {
			return Mono.defer(() -> {
				this.reads.incrementAndGet();
				if (this.unreachable) {
					return Mono.error(StreamgateException.kafkaUnavailable(new IllegalStateException("down")));
				}
				this.known.putAll(this.notReadYet);
				this.notReadYet.clear();
				return Mono.empty();
			});
		}

		@Override
		public Mono<Void> save(String topicId, String key, Answer answer) {
			return Mono.fromRunnable(() -> this.known.put(topicId + '\n' + key, answer));
		}

		private static byte[] sha256(byte[] body) {
			try {
				return MessageDigest.getInstance("SHA-256").digest(body);
			}
			catch (NoSuchAlgorithmException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
