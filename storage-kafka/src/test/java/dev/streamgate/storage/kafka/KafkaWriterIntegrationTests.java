package dev.streamgate.storage.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The reactive face of kafka-clients' producer against a broker: order, the threads
 * results come on, transactions that commit, abort and survive being fenced, and closing.
 */
class KafkaWriterIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(15);

	private KafkaClients clients;

	private Admin admin;

	private String topic;

	private final List<AutoCloseable> opened = new ArrayList<>();

	@BeforeEach
	void createTopic() throws Exception {
		this.clients = new KafkaClients(TestKafka.bootstrapServers(), Map.of(),
				ConfigTopicsIntegrationTests.properties(TestKafka.uniquePrefix()));
		this.admin = this.clients.admin();
		this.topic = this.clients.properties().topicPrefix() + "writer";
		this.admin.createTopics(List.of(new NewTopic(this.topic, 1, (short) 1))).all().get();
	}

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable closeable : this.opened) {
			closeable.close();
		}
		this.admin.close();
	}

	private <T extends AutoCloseable> T opened(T closeable) {
		this.opened.add(closeable);
		return closeable;
	}

	@Test
	void sendsRecordsInOrderAndAnswersEachWhereKafkaWroteIt() {
		KafkaWriter writer = opened(this.clients.writer("order"));
		List<ProducerRecord<String, byte[]>> records = IntStream.range(0, 50)
			.mapToObj((i) -> record("k", "v" + i))
			.toList();
		List<RecordMetadata> written = writer.sendAll(records).block(TIMEOUT);
		RecordMetadata single = writer.send(record("k", "last")).block(TIMEOUT);

		assertThat(written).extracting(RecordMetadata::offset)
			.containsExactlyElementsOf(IntStream.range(0, 50).mapToObj(Long::valueOf).toList());
		assertThat(single.offset()).isEqualTo(50);
		assertThat(committedValues()).hasSize(51).startsWith("v0", "v1", "v2").endsWith("v49", "last");
	}

	@Test
	void answersOnItsOwnNonBlockingThreadWhereBlockFailsAtOnce() {
		KafkaWriter writer = opened(this.clients.writer("threads"));
		String thread = writer.send(record("k", "v"))
			.map((metadata) -> Thread.currentThread().getName())
			.block(TIMEOUT);
		boolean nonBlocking = writer.send(record("k", "v"))
			.map((metadata) -> Schedulers.isInNonBlockingThread())
			.block(TIMEOUT);
		Mono<RecordMetadata> blockingThere = writer.send(record("k", "v"))
			.map((metadata) -> writer.send(record("k", "nested")).block(TIMEOUT));

		assertThat(thread).startsWith("streamgate-kafka-threads");
		assertThat(nonBlocking).isTrue();
		assertThatThrownBy(() -> blockingThere.block(TIMEOUT)).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("block");
	}

	@Test
	void commitsATransactionAsAWholeAndAbortsOneThatFailsWithoutLosingTheWriter() {
		KafkaWriter writer = opened(this.clients.transactionalWriter("tx"));
		List<RecordMetadata> first = writer.sendTransactionally(List.of(record("a", "one"), record("a", "two")))
			.block(TIMEOUT);
		byte[] tooLarge = new byte[2 * 1024 * 1024];
		ProducerRecord<String, byte[]> refused = new ProducerRecord<>(this.topic, "a", tooLarge);
		Mono<List<RecordMetadata>> failing = writer.sendTransactionally(List.of(record("a", "aborted"), refused));

		assertThat(first).extracting(RecordMetadata::offset).containsExactly(0L, 1L);
		assertThatThrownBy(() -> failing.block(TIMEOUT)).isInstanceOf(RecordTooLargeException.class);
		writer.sendTransactionally(List.of(record("a", "three"))).block(TIMEOUT);
		assertThat(committedValues()).containsExactly("one", "two", "three");
	}

	@Test
	void aFencedTransactionFailsAndTheNextOneWritesWithAProducerMadeAgain() {
		Map<String, Object> config = this.clients.producer("fenced");
		String transactionalId = this.clients.properties().topicPrefix() + "fenced";
		config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
		KafkaWriter writer = opened(KafkaWriter.transactional("fenced", config));
		writer.sendTransactionally(List.of(record("a", "before"))).block(TIMEOUT);
		try (KafkaProducer<String, byte[]> other = new KafkaProducer<>(config, new StringSerializer(),
				new ByteArraySerializer())) {
			other.initTransactions();
		}

		assertThatThrownBy(() -> writer.sendTransactionally(List.of(record("a", "fenced"))).block(TIMEOUT))
			.isInstanceOf(KafkaException.class);
		writer.sendTransactionally(List.of(record("a", "after"))).block(TIMEOUT);
		assertThat(committedValues()).containsExactly("before", "after");
	}

	@Test
	void answersWhatItTookBeforeClosingAndRefusesWhatComesAfter() {
		KafkaWriter writer = this.clients.writer("closing");
		Mono<List<RecordMetadata>> taken = writer
			.sendAll(IntStream.range(0, 20).mapToObj((i) -> record("k", "v" + i)).toList())
			.cache();
		taken.subscribe();
		writer.close();

		assertThat(taken.block(TIMEOUT)).hasSize(20);
		assertThatThrownBy(() -> writer.send(record("k", "late")).block(TIMEOUT)).isInstanceOf(KafkaException.class)
			.hasMessageContaining("closed");
	}

	@Test
	void eachKindRefusesTheOthersWrites() {
		KafkaWriter plain = opened(this.clients.writer("plain"));
		KafkaWriter transactional = opened(this.clients.transactionalWriter("transactional"));

		assertThatThrownBy(() -> plain.sendTransactionally(List.of(record("a", "b"))).block(TIMEOUT))
			.isInstanceOf(IllegalStateException.class);
		assertThatThrownBy(() -> transactional.send(record("a", "b")).block(TIMEOUT))
			.isInstanceOf(IllegalStateException.class);
	}

	private ProducerRecord<String, byte[]> record(String key, String value) {
		return new ProducerRecord<>(this.topic, key, value.getBytes(StandardCharsets.UTF_8));
	}

	/** What a reader of committed records finds in the topic, in order. */
	private List<String> committedValues() {
		TopicPartition partition = new TopicPartition(this.topic, 0);
		try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(this.clients.readConsumer("check"),
				new StringDeserializer(), new ByteArrayDeserializer())) {
			consumer.assign(List.of(partition));
			consumer.seekToBeginning(List.of(partition));
			long end = consumer.endOffsets(List.of(partition)).get(partition);
			List<String> values = new ArrayList<>();
			long deadline = System.nanoTime() + TIMEOUT.toNanos();
			while (consumer.position(partition) < end && System.nanoTime() < deadline) {
				for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
					values.add(new String(record.value(), StandardCharsets.UTF_8));
				}
			}
			return values;
		}
	}

}
