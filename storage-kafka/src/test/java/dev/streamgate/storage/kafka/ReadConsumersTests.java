package dev.streamgate.storage.kafka;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Which read consumers are kept, reused and closed, on a clock of the test's own. The
 * consumers never poll, so they never connect (KafkaEventLogIntegrationTests reads
 * through kept consumers on a real broker).
 */
class ReadConsumersTests {

	private static final Duration IDLE = Duration.ofSeconds(10);

	private final AtomicLong now = new AtomicLong(1_000_000_000L);

	private final List<KafkaConsumer<String, ByteBuffer>> made = new ArrayList<>();

	private final ReadConsumers readers = new ReadConsumers(this::unconnected, 2, IDLE, this.now::get);

	@AfterEach
	void closeAll() {
		this.readers.close();
		this.made.forEach(KafkaConsumer::close);
	}

	@Test
	void aConsumerGivenBackIsTakenAgain() {
		KafkaConsumer<String, ByteBuffer> first = this.readers.take();
		this.readers.give(first);
		assertThat(this.readers.take()).isSameAs(first);
		assertThat(this.made).hasSize(1);
	}

	@Test
	void noMoreThanTheMaximumAreKeptAndTheRestAreClosed() {
		List<KafkaConsumer<String, ByteBuffer>> three = List.of(this.readers.take(), this.readers.take(),
				this.readers.take());
		three.forEach(this.readers::give);
		assertThat(this.readers.kept()).isEqualTo(2);
		assertThatIllegalStateException().isThrownBy(() -> three.get(2).assignment());
	}

	@Test
	void consumersKeptWithoutAReadForTheIdleTimeAreClosed() {
		KafkaConsumer<String, ByteBuffer> older = this.readers.take();
		KafkaConsumer<String, ByteBuffer> newer = this.readers.take();
		this.readers.give(older);
		this.now.addAndGet(IDLE.toNanos() / 2);
		this.readers.give(newer);
		this.now.addAndGet(IDLE.toNanos() / 2 - 1);
		assertThat(this.readers.closeIdle()).isZero();

		this.now.addAndGet(1);
		assertThat(this.readers.closeIdle()).isEqualTo(1);
		assertThatIllegalStateException().isThrownBy(older::assignment);
		assertThat(newer.assignment()).isEmpty();
		assertThat(this.readers.take()).isSameAs(newer);
	}

	@Test
	void aConsumerTakenAndGivenBackStartsItsIdleTimeAgain() {
		KafkaConsumer<String, ByteBuffer> consumer = this.readers.take();
		this.readers.give(consumer);
		this.now.addAndGet(IDLE.toNanos() - 1);
		this.readers.give(this.readers.take());
		this.now.addAndGet(IDLE.toNanos() - 1);
		assertThat(this.readers.closeIdle()).isZero();
		assertThat(this.readers.kept()).isEqualTo(1);
		this.now.addAndGet(1);
		assertThat(this.readers.closeIdle()).isEqualTo(1);
		assertThat(this.readers.kept()).isZero();
	}

	@Test
	void nothingIsKeptOnceClosed() {
		KafkaConsumer<String, ByteBuffer> consumer = this.readers.take();
		this.readers.close();
		this.readers.give(consumer);
		assertThat(this.readers.kept()).isZero();
		assertThatIllegalStateException().isThrownBy(consumer::assignment);
	}

	private KafkaConsumer<String, ByteBuffer> unconnected() {
		KafkaConsumer<String, ByteBuffer> consumer = KafkaEventLog
			.consumer(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9"));
		this.made.add(consumer);
		return consumer;
	}

}
