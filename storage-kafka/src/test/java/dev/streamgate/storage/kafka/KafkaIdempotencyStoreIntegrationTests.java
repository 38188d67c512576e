package dev.streamgate.storage.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import dev.streamgate.core.storage.IdempotencyStore;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Idempotency-Key claims and answers shared by ingest nodes through Kafka, on a real
 * broker: the log orders every node's claims, so one first attempt wins, and a node that
 * claims a key sees every answer stored before its claim.
 */
class KafkaIdempotencyStoreIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(15);

	private static final byte[] DIGEST = new byte[32];

	private KafkaClients clients;

	private Admin admin;

	private String topic;

	@BeforeEach
	void createTopics() {
		String prefix = TestKafka.uniquePrefix();
		this.clients = new KafkaClients(TestKafka.bootstrapServers(), Map.of(),
				ConfigTopicsIntegrationTests.properties(prefix));
		this.admin = this.clients.admin();
		new ConfigTopics(this.admin, this.clients, TestKafka.eventStorage()).ensure();
		this.topic = prefix + ConfigTopics.IDEMPOTENCY;
	}

	@AfterEach
	void close() {
		this.admin.close();
	}

	@Test
	void anAnswerStoredOnOneNodeIsKnownOnAnotherAtOnce() {
		// A retry on node B a few milliseconds after node A stored the answer: B's claim
		// is read back after A's answer, so B sees it whether or not its reader had
		// applied it when the retry came.
		try (KafkaIdempotencyStore a = start(); KafkaIdempotencyStore b = start()) {
			await().atMost(TIMEOUT).until(() -> a.isCaughtUp() && b.isCaughtUp());
			for (int i = 0; i < 40; i++) {
				String key = "k" + i;
				IdempotencyStore.Answer stored = answer(i);
				a.answer(won(a.claim("orders", key, DIGEST).block(TIMEOUT)), stored).block(TIMEOUT);
				assertThat(b.claim("orders", key, DIGEST).block(TIMEOUT)).as(key)
					.isInstanceOfSatisfying(IdempotencyStore.Claim.Answered.class,
							(answered) -> assertThat(answered.answer().body()).isEqualTo(stored.body()));
			}
		}
	}

	@Test
	void ofTwoFirstAttemptsAtTheSameMomentOnTwoNodesExactlyOneWins() {
		try (KafkaIdempotencyStore a = start(); KafkaIdempotencyStore b = start()) {
			await().atMost(TIMEOUT).until(() -> a.isCaughtUp() && b.isCaughtUp());
			for (int i = 0; i < 40; i++) {
				String key = "k" + i;
				List<IdempotencyStore.Claim> claims = Flux
					.merge(a.claim("orders", key, DIGEST).subscribeOn(Schedulers.parallel()),
							b.claim("orders", key, DIGEST).subscribeOn(Schedulers.parallel()))
					.collectList()
					.block(TIMEOUT);
				assertThat(claims).as(key)
					.hasSize(2)
					.filteredOn(IdempotencyStore.Claim.Won.class::isInstance)
					.hasSize(1);
				assertThat(claims).as(key)
					.filteredOn(IdempotencyStore.Claim.InUse.class::isInstance)
					.singleElement()
					.satisfies(
							(inUse) -> assertThat(((IdempotencyStore.Claim.InUse) inUse).digest()).isEqualTo(DIGEST));
			}
		}
	}

	@Test
	void aReleasedClaimFreesItsKeyAndAnAnswerEndsIt() {
		try (KafkaIdempotencyStore a = start(); KafkaIdempotencyStore b = start()) {
			await().atMost(TIMEOUT).until(() -> a.isCaughtUp() && b.isCaughtUp());
			IdempotencyStore.Claim.Won first = won(a.claim("orders", "k", DIGEST).block(TIMEOUT));
			assertThat(b.claim("orders", "k", DIGEST).block(TIMEOUT)).isInstanceOf(IdempotencyStore.Claim.InUse.class);
			a.release(first).block(TIMEOUT);
			IdempotencyStore.Claim.Won second = won(b.claim("orders", "k", DIGEST).block(TIMEOUT));
			b.answer(second, answer(7)).block(TIMEOUT);
			assertThat(a.claim("orders", "k", DIGEST).block(TIMEOUT))
				.isInstanceOf(IdempotencyStore.Claim.Answered.class);
		}
	}

	@Test
	void aClaimThatIsNeverAnsweredExpires() {
		// A node that died between its claim and its answer holds the key only for the
		// claim timeout.
		Duration claimTimeout = Duration.ofSeconds(2);
		try (KafkaIdempotencyStore a = start(1 << 20, claimTimeout);
				KafkaIdempotencyStore b = start(1 << 20, claimTimeout)) {
			await().atMost(TIMEOUT).until(() -> a.isCaughtUp() && b.isCaughtUp());
			won(a.claim("orders", "k", DIGEST).block(TIMEOUT));
			assertThat(b.claim("orders", "k", DIGEST).block(TIMEOUT)).isInstanceOf(IdempotencyStore.Claim.InUse.class);
			await().atMost(TIMEOUT)
				.pollInterval(Duration.ofMillis(500))
				.until(() -> b.claim("orders", "k", DIGEST).block(TIMEOUT) instanceof IdempotencyStore.Claim.Won);
		}
	}

	@Test
	void answersBeyondTheRecentOnesAreReadBackFromKafkaAlsoAfterARestart() {
		List<IdempotencyStore.Answer> stored = new java.util.ArrayList<>();
		try (KafkaIdempotencyStore a = start(0, KafkaIdempotencyStore.CLAIM_TIMEOUT)) {
			await().atMost(TIMEOUT).until(a::isCaughtUp);
			for (int i = 0; i < 20; i++) {
				stored.add(answer(i));
				a.answer(won(a.claim("orders", "k" + i, DIGEST).block(TIMEOUT)), stored.get(i)).block(TIMEOUT);
			}
			assertThat(a.indexedKeys()).isEqualTo(20);
		}
		// No answer kept whole: each is found in the index and read from its record.
		try (KafkaIdempotencyStore restarted = start(0, KafkaIdempotencyStore.CLAIM_TIMEOUT)) {
			await().atMost(TIMEOUT).until(restarted::isCaughtUp);
			for (int i = 0; i < 20; i++) {
				IdempotencyStore.Answer expected = stored.get(i);
				assertThat(restarted.claim("orders", "k" + i, DIGEST).block(TIMEOUT)).as("k" + i)
					.isInstanceOfSatisfying(IdempotencyStore.Claim.Answered.class,
							(answered) -> assertThat(answered.answer().body()).isEqualTo(expected.body()));
			}
			assertThat(restarted.claim("orders", "unknown", DIGEST).block(TIMEOUT))
				.isInstanceOf(IdempotencyStore.Claim.Won.class);
		}
	}

	private KafkaIdempotencyStore start() {
		return KafkaIdempotencyStore.start(this.clients, Duration.ofMinutes(10), 1 << 20);
	}

	private KafkaIdempotencyStore start(long recentBytes, Duration claimTimeout) {
		return KafkaIdempotencyStore.start(this.clients, Duration.ofMinutes(10), 1 << 20, recentBytes, claimTimeout);
	}

	private static IdempotencyStore.Claim.Won won(IdempotencyStore.Claim claim) {
		assertThat(claim).isInstanceOf(IdempotencyStore.Claim.Won.class);
		return (IdempotencyStore.Claim.Won) claim;
	}

	private static IdempotencyStore.Answer answer(int i) {
		return new IdempotencyStore.Answer(DIGEST,
				("{\"id\":\"" + i + "\",\"changed\":true}").getBytes(StandardCharsets.UTF_8), Instant.now());
	}

}
