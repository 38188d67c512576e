package dev.streamgate.core.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.kafka.sender.KafkaSender;
import reactor.kafka.sender.SenderRecord;

import dev.streamgate.core.event.IdempotencyStore;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Idempotency-Key answers shared by ingest nodes through Kafka, on a real broker: a node
 * that reads the answers to their end knows every answer stored before, on any node.
 */
class KafkaIdempotencyStoreIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(15);

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
	void anAnswerStoredOnOneNodeIsKnownOnAnotherOnceItHasReadToTheEnd() {
		// The cross-node retry of a CI run: node B checked its memory a few milliseconds
		// after node A stored the answer, before its reader had applied it, and published
		// again.
		try (KafkaIdempotencyStore a = start(); KafkaIdempotencyStore b = start()) {
			await().atMost(TIMEOUT).until(() -> a.isCaughtUp() && b.isCaughtUp());
			for (int i = 0; i < 40; i++) {
				String key = "k" + i;
				IdempotencyStore.Answer stored = answer(i);
				a.save("orders", key, stored).block(TIMEOUT);
				b.readToEnd().block(TIMEOUT);
				assertThat(b.get("orders", key)).as(key)
					.hasValueSatisfying((answer) -> assertThat(answer.body()).isEqualTo(stored.body()));
			}
		}
	}

	@Test
	void readingToTheEndWaitsUntilTheReaderHasAppliedWhatWasWrittenBefore() throws Exception {
		CountDownLatch held = new CountDownLatch(1);
		List<String> applied = new CopyOnWriteArrayList<>();
		KafkaSender<String, byte[]> sender = this.clients.sender("test");
		try (KafkaConfigLog log = new KafkaConfigLog(this.topic, this.clients, sender, (entry) -> {
			try {
				held.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			applied.add(entry.key());
		})) {
			log.start();
			await().atMost(TIMEOUT).until(log::isCaughtUp);
			// Written by another node: acknowledged, not yet applied by this reader.
			sender
				.send(Mono.just(SenderRecord.create(new ProducerRecord<>(this.topic, "written", new byte[] { 1 }), 0)))
				.blockLast(TIMEOUT);

			CompletableFuture<List<String>> read = log.readToEnd(this.admin)
				.then(Mono.fromCallable(() -> List.copyOf(applied)))
				.toFuture();
			// The applier holds the record: reading to the end must not complete
			// meanwhile.
			assertThat(read).failsWithin(Duration.ofMillis(500))
				.withThrowableOfType(java.util.concurrent.TimeoutException.class);
			held.countDown();
			assertThat(read.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).containsExactly("written");
		}
		finally {
			sender.close();
		}
	}

	@Test
	void readingAnEmptyLogToItsEndCompletes() {
		try (KafkaIdempotencyStore store = start()) {
			await().atMost(TIMEOUT).until(store::isCaughtUp);
			store.readToEnd().block(TIMEOUT);
			assertThat(store.get("orders", "unknown")).isEmpty();
		}
	}

	private KafkaIdempotencyStore start() {
		return KafkaIdempotencyStore.start(this.clients, Duration.ofMinutes(10), 1000);
	}

	private static IdempotencyStore.Answer answer(int i) {
		return new IdempotencyStore.Answer(new byte[32],
				("{\"id\":\"" + i + "\",\"changed\":true}").getBytes(StandardCharsets.UTF_8), Instant.now());
	}

}
