package dev.streamgate.storage.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.storage.TopicStoreContract;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The topic store contract over a Kafka broker, and what only Kafka keeps: definitions
 * that a new reader finds.
 */
class KafkaTopicStoreIntegrationTests extends TopicStoreContract {

	private KafkaClients clients;

	private Admin admin;

	private KafkaWriter writer;

	@BeforeEach
	void createTopics() {
		this.clients = new KafkaClients(TestKafka.bootstrapServers(), Map.of(),
				ConfigTopicsIntegrationTests.properties(TestKafka.uniquePrefix()));
		this.admin = this.clients.admin();
		this.writer = this.clients.writer("test");
		new ConfigTopics(this.admin, this.clients, TestKafka.eventStorage()).ensure();
	}

	private final List<KafkaTopicStore> started = new ArrayList<>();

	@AfterEach
	void close() {
		this.started.forEach(KafkaTopicStore::close);
		this.writer.close();
		this.admin.close();
	}

	@Override
	protected TopicStore store() {
		KafkaTopicStore store = startStore();
		this.started.add(store);
		return store;
	}

	private KafkaTopicStore startStore() {
		KafkaTopicStore store = new KafkaTopicStore(this.clients, this.writer);
		store.start();
		await().atMost(TIMEOUT).until(store::isCaughtUp);
		return store;
	}

	@Test
	void definitionsSurviveANewReader() {
		try (KafkaTopicStore store = startStore()) {
			store.save(topic("a", "first")).block(TIMEOUT);
			store.save(topic("a", "second")).block(TIMEOUT);
			store.save(topic("b", "other")).block(TIMEOUT);
			store.delete("b").block(TIMEOUT);
		}
		try (KafkaTopicStore reader = startStore()) {
			assertThat(reader.list()).singleElement()
				.satisfies((stored) -> assertThat(stored.topic().name()).isEqualTo("second"));
		}
	}

}
