package dev.streamgate.core.kafka;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.kafka.sender.KafkaSender;
import reactor.kafka.sender.SenderOptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which producer a publication takes: the lingering one only when the previous
 * publication came less than a linger before it. No record is sent here, so the producers
 * are never made (KafkaEventLogIntegrationTests sends through both).
 */
class PublicationSendersTests {

	private static final Duration LINGER = Duration.ofMillis(2);

	private final AtomicLong now = new AtomicLong(1_000_000_000L);

	private final KafkaSender<String, byte[]> lingering = unconnected();

	private final KafkaSender<String, byte[]> immediate = unconnected();

	private final PublicationSenders senders = new PublicationSenders(this.lingering, this.immediate, LINGER,
			this.now::get);

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
		PublicationSenders one = PublicationSenders.of(this.immediate);
		assertThat(one.next()).isSameAs(this.immediate);
		assertThat(one.next()).isSameAs(this.immediate);
		assertThat(one.lingering()).isSameAs(one.immediate());
	}

	@AfterEach
	void close() {
		this.senders.close();
	}

	/** A sender whose producer would be made on first use, which never comes. */
	private static KafkaSender<String, byte[]> unconnected() {
		return KafkaSender.create(SenderOptions.<String, byte[]>create(Map.of("bootstrap.servers", "127.0.0.1:9"))
			.withKeySerializer(new StringSerializer())
			.withValueSerializer(new ByteArraySerializer()));
	}

}
