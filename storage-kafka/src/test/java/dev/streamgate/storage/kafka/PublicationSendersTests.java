package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Which producer a publication takes: the lingering one only when the previous
 * publication came less than a linger before it, and a send that would wait. No broker
 * listens here (KafkaEventLogIntegrationTests sends through both producers).
 */
class PublicationSendersTests {

	private static final Duration LINGER = Duration.ofMillis(2);

	private static final Duration WRITE_TIMEOUT = Duration.ofMillis(200);

	private final AtomicLong now = new AtomicLong(1_000_000_000L);

	private final KafkaProducer<String, byte[]> lingering = unconnected();

	private final KafkaProducer<String, byte[]> immediate = unconnected();

	private final PublicationSenders senders = new PublicationSenders(this.lingering, this.immediate, LINGER,
			WRITE_TIMEOUT, this.now::get);

	@Test
	void theFirstPublicationGoesAtOnce() {
		assertThat(this.senders.next()).isSameAs(this.immediate);
	}

	@Test
	void publicationsCloserThanTheLingerWaitForOthers() {
		this.senders.next();
		this.now.addAndGet(LINGER.toNanos() - 1);
		assertThat(this.senders.next()).isSameAs(this.lingering);
		this.now.addAndGet(100_000);
		assertThat(this.senders.next()).isSameAs(this.lingering);
		// Two at the same instant: the second has company.
		assertThat(this.senders.next()).isSameAs(this.lingering);
	}

	@Test
	void aPublicationALingerOrMoreAfterThePreviousGoesAtOnce() {
		this.senders.next();
		this.now.addAndGet(LINGER.toNanos());
		assertThat(this.senders.next()).isSameAs(this.immediate);
		this.now.addAndGet(Duration.ofSeconds(1).toNanos());
		assertThat(this.senders.next()).isSameAs(this.immediate);
		// A burst after a quiet spell: its first goes at once, the rest wait together.
		this.now.addAndGet(10_000);
		assertThat(this.senders.next()).isSameAs(this.lingering);
	}

	@Test
	void withoutALingerThereIsOneProducer() {
		PublicationSenders one = PublicationSenders.of(this.immediate, WRITE_TIMEOUT);
		assertThat(one.next()).isSameAs(this.immediate);
		assertThat(one.next()).isSameAs(this.immediate);
		assertThat(one.lingering()).isSameAs(one.immediate());
	}

	@AfterEach
	void close() {
		this.senders.close();
	}

	@Test
	void aSendThatWouldWaitForMetadataFailsOnTheCallersThreadAndIsTriedAgainUntilTheWriteTimeout() {
		// The shortest write timeout a producer takes (delivery.timeout.ms >=
		// request.timeout.ms).
		Duration writeTimeout = Duration.ofSeconds(2);
		KafkaClients clients = new KafkaClients("127.0.0.1:9", Map.of(),
				new StreamgateKafkaProperties("test.", 3, Duration.ofDays(7), writeTimeout, Duration.ofSeconds(10),
						Duration.ofSeconds(6), LINGER, Duration.ZERO));
		try (PublicationSenders made = clients.publicationSenders("unconnected")) {
			ProducerRecord<String, byte[]> record = new ProducerRecord<>("nowhere", 0, "id", new byte[] { 1 });
			AtomicReference<Throwable> failure = new AtomicReference<>();
			CountDownLatch done = new CountDownLatch(1);
			made.send(record).subscribe(null, (ex) -> {
				failure.set(ex);
				done.countDown();
			});
			// Back from subscribe: the first try has failed already (the next ones come
			// every PublicationSenders.RETRY on another thread).
			assertThat(failedSends(made.immediate())).isPositive();
			assertThat(done.getCount()).isOne();

			await().atMost(Duration.ofSeconds(10)).until(() -> done.getCount() == 0);
			// The producer's own words: it did not wait at all.
			assertThat(failure.get()).isInstanceOf(TimeoutException.class)
				.hasMessageContaining("nowhere not present in metadata after 0 ms");
			// Tried again every PublicationSenders.RETRY until the write timeout.
			assertThat(failedSends(made.immediate())).isGreaterThan(1);
			assertThat(failedSends(made.lingering())).isZero();
		}
	}

	/** Sends that failed in the producer, counted by the producer itself. */
	private static double failedSends(Producer<String, byte[]> producer) {
		return ProducerMetrics.of(producer, "record-error-total");
	}

	/** A producer that never sends here: nothing listens at its bootstrap address. */
	private static KafkaProducer<String, byte[]> unconnected() {
		return new KafkaProducer<>(
				Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9", ProducerConfig.MAX_BLOCK_MS_CONFIG, 0,
						ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false, ProducerConfig.ACKS_CONFIG, "1"),
				new StringSerializer(), new ByteArraySerializer());
	}

}
