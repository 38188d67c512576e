package dev.streamgate.core.storage;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import dev.streamgate.core.storage.IdempotencyStore.Answer;
import dev.streamgate.core.storage.IdempotencyStore.Claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What every store of Idempotency-Key claims and answers promises, over Kafka and in
 * memory alike.
 */
public abstract class IdempotencyStoreContract {

	protected static final Duration TIMEOUT = Duration.ofSeconds(15);

	private static final byte[] DIGEST = new byte[32];

	/** The store under test, made fresh for each test and caught up soon after. */
	protected abstract IdempotencyStore store();

	private IdempotencyStore ready() {
		IdempotencyStore store = store();
		await().atMost(TIMEOUT).until(store::isCaughtUp);
		return store;
	}

	private static Claim.Won won(Claim claim) {
		assertThat(claim).isInstanceOf(Claim.Won.class);
		return (Claim.Won) claim;
	}

	@Test
	void theFirstClaimWinsAndTheNextSeesItInUseWithItsDigest() {
		IdempotencyStore store = ready();
		byte[] digest = "request-one".getBytes(StandardCharsets.UTF_8);
		won(store.claim("orders", "k", digest).block(TIMEOUT));

		Claim second = store.claim("orders", "k", DIGEST).block(TIMEOUT);
		assertThat(second).isInstanceOf(Claim.InUse.class);
		assertThat(((Claim.InUse) second).digest()).isEqualTo(digest);
	}

	@Test
	void anAnswerIsGivenToEveryLaterClaimOfItsKey() {
		IdempotencyStore store = ready();
		Claim.Won claim = won(store.claim("orders", "k", DIGEST).block(TIMEOUT));
		byte[] body = "{\"id\":\"0-7\"}".getBytes(StandardCharsets.UTF_8);
		store.answer(claim, new Answer(DIGEST, body, Instant.now())).block(TIMEOUT);

		for (int i = 0; i < 2; i++) {
			Claim again = store.claim("orders", "k", DIGEST).block(TIMEOUT);
			assertThat(again).isInstanceOf(Claim.Answered.class);
			assertThat(((Claim.Answered) again).answer().body()).isEqualTo(body);
		}
	}

	@Test
	void aReleasedClaimFreesItsKey() {
		IdempotencyStore store = ready();
		Claim.Won first = won(store.claim("orders", "k", DIGEST).block(TIMEOUT));
		store.release(first).block(TIMEOUT);

		Claim.Won second = won(store.claim("orders", "k", DIGEST).block(TIMEOUT));
		assertThat(second.id()).isNotEqualTo(first.id());
	}

	@Test
	void theSameKeyOnTwoTopicsIsTwoKeys() {
		IdempotencyStore store = ready();
		won(store.claim("orders", "k", DIGEST).block(TIMEOUT));

		won(store.claim("invoices", "k", DIGEST).block(TIMEOUT));
	}

}
