package dev.streamgate.publish.ingest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.storage.IdempotencyStore;
import dev.streamgate.storage.memory.MemoryIdempotencyStore;

import static org.assertj.core.api.Assertions.assertThat;

class IdempotencyKeysTests {

	private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T00:00:00Z"), ZoneOffset.UTC);

	private static final byte[] BODY = "{\"order\":1}".getBytes(StandardCharsets.UTF_8);

	private final OtherNodes store = new OtherNodes();

	private final IdempotencyKeys keys = new IdempotencyKeys(Duration.ofHours(24), this.store, CLOCK);

	private final AtomicInteger published = new AtomicInteger();

	@Test
	void aKeyAnsweredOnAnotherNodeIsReplayedNotPublished() {
		this.store.answeredElsewhere("orders", "k1", IdempotencyKeys.encode(new PublishResponse("7", true, null)));
		StepVerifier.create(this.keys.answer("orders", "k1", BODY, this::publish)).assertNext((answer) -> {
			assertThat(answer.replayed()).isTrue();
			assertThat(answer.response().id()).isEqualTo("7");
		}).verifyComplete();
		assertThat(this.published).hasValue(0);
	}

	@Test
	void aKeyNobodyAnsweredIsPublishedOnceThenReplayed() {
		StepVerifier.create(this.keys.answer("orders", "k1", BODY, this::publish))
			.assertNext((answer) -> assertThat(answer.replayed()).isFalse())
			.verifyComplete();
		StepVerifier.create(this.keys.answer("orders", "k1", BODY, this::publish)).assertNext((answer) -> {
			assertThat(answer.replayed()).isTrue();
			assertThat(answer.response().id()).isEqualTo("1");
		}).verifyComplete();
		assertThat(this.published).hasValue(1);
	}

	@Test
	void aKeyClaimedByAnAttemptInFlightOnAnotherNodeIsInUseUntilAnsweredThenReplayed() {
		IdempotencyStore.Claim.Won elsewhere = this.store.claimedElsewhere("orders", "k1", BODY);
		StepVerifier.create(this.keys.answer("orders", "k1", BODY, this::publish)).verifyErrorSatisfies((ex) -> {
			assertThat(((StreamgateException) ex).problemType()).isEqualTo(ProblemType.IDEMPOTENCY_KEY_IN_USE);
			assertThat(((StreamgateException) ex).getHeaders().getFirst("Retry-After")).isEqualTo("1");
		});
		this.store
			.answer(elsewhere,
					new IdempotencyStore.Answer(OtherNodes.sha256(BODY),
							IdempotencyKeys.encode(new PublishResponse("9", true, null)), CLOCK.instant()))
			.block();
		StepVerifier.create(this.keys.answer("orders", "k1", BODY, this::publish))
			.assertNext((answer) -> assertThat(answer)
				.isEqualTo(new IdempotencyKeys.Answer(new PublishResponse("9", true, null), true)))
			.verifyComplete();
		assertThat(this.published).hasValue(0);
	}

	@Test
	void aFailedAttemptGivesItsClaimUpSoThatARetryPublishesAtOnce() {
		StepVerifier
			.create(this.keys.answer("orders", "k1", BODY,
					() -> Mono.error(StreamgateException.kafkaUnavailable(new IllegalStateException("down")))))
			.verifyError(StreamgateException.class);
		StepVerifier.create(this.keys.answer("orders", "k1", BODY, this::publish))
			.assertNext((answer) -> assertThat(answer.replayed()).isFalse())
			.verifyComplete();
		assertThat(this.published).hasValue(1);
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
	 * A store in memory whose Kafka may be down, and where another node may have claimed
	 * or answered a key.
	 */
	private static final class OtherNodes implements IdempotencyStore {

		private final MemoryIdempotencyStore memory = new MemoryIdempotencyStore(Duration.ofHours(24), CLOCK);

		private final AtomicInteger claims = new AtomicInteger();

		private volatile boolean unreachable;

		void answeredElsewhere(String topicId, String key, byte[] body) {
			Claim.Won won = (Claim.Won) this.memory.claim(topicId, key, sha256(BODY)).block();
			this.memory.answer(won, new Answer(sha256(BODY), body, CLOCK.instant())).block();
		}

		Claim.Won claimedElsewhere(String topicId, String key, byte[] body) {
			return (Claim.Won) this.memory.claim(topicId, key, sha256(body)).block();
		}

		@Override
		public boolean isCaughtUp() {
			return true;
		}

		@Override
		public Mono<Claim> claim(String topicId, String key, byte[] digest) {
			return Mono.defer(() -> {
				this.claims.incrementAndGet();
				if (this.unreachable) {
					return Mono.error(StreamgateException.kafkaUnavailable(new IllegalStateException("down")));
				}
				return this.memory.claim(topicId, key, digest);
			});
		}

		@Override
		public Mono<Void> answer(Claim.Won claim, Answer answer) {
			return this.memory.answer(claim, answer);
		}

		@Override
		public Mono<Void> release(Claim.Won claim) {
			return this.memory.release(claim);
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
