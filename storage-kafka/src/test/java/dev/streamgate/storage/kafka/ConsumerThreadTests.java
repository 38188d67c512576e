package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A consumer's loop stopped from another thread and from its own. The consumer is real
 * and nothing listens at its address, so that its poll waits its whole timeout unless it
 * is woken.
 */
class ConsumerThreadTests {

	private static final Duration LONG_POLL = Duration.ofSeconds(60);

	@Test
	void stopWakesAPollInProgressAndWaitsForTheLoopToEnd() throws InterruptedException {
		CountDownLatch polling = new CountDownLatch(1);
		AtomicReference<Throwable> ended = new AtomicReference<>();
		AtomicReference<ConsumerThread> holder = new AtomicReference<>();
		ConsumerThread thread = new ConsumerThread("test-consumer", () -> {
			try (KafkaConsumer<byte[], byte[]> consumer = holder.get().polls(unreachable())) {
				consumer.assign(List.of(new TopicPartition("nowhere", 0)));
				while (holder.get().running()) {
					polling.countDown();
					consumer.poll(LONG_POLL);
				}
			}
			catch (WakeupException ex) {
				ended.set(ex);
			}
		});
		holder.set(thread);
		thread.start();
		assertThat(polling.await(10, TimeUnit.SECONDS)).isTrue();

		thread.stop();

		assertThat(thread.running()).isFalse();
		assertThat(thread.thread().isAlive()).isFalse();
		assertThat(ended.get()).isInstanceOf(WakeupException.class);
	}

	@Test
	void theLoopMayHaltItselfWithoutWaitingForItself() throws InterruptedException {
		AtomicInteger rounds = new AtomicInteger();
		AtomicReference<ConsumerThread> holder = new AtomicReference<>();
		ConsumerThread thread = new ConsumerThread("test-consumer", () -> {
			while (holder.get().running()) {
				if (rounds.incrementAndGet() == 3) {
					// stop() from the loop's own thread returns rather than waiting ten
					// seconds for itself.
					holder.get().stop();
				}
			}
		});
		holder.set(thread);
		thread.start();
		thread.thread().join(Duration.ofSeconds(10).toMillis());

		assertThat(thread.thread().isAlive()).isFalse();
		assertThat(rounds).hasValue(3);
	}

	@Test
	void aWakeupBeforeTheConsumerIsNamedIsIgnored() {
		ConsumerThread thread = new ConsumerThread("test-consumer", () -> {
		});
		thread.wakeup();
		thread.stop();
		assertThat(thread.running()).isFalse();
	}

	private static KafkaConsumer<byte[], byte[]> unreachable() {
		return new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9"),
				new ByteArrayDeserializer(), new ByteArrayDeserializer());
	}

}
