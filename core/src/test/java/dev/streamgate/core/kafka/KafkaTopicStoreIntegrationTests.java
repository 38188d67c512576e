package dev.streamgate.core.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.topic.TopicStore.TopicChange;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

class KafkaTopicStoreIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

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

	@AfterEach
	void close() {
		this.writer.close();
		this.admin.close();
	}

	private KafkaTopicStore startStore() {
		KafkaTopicStore store = new KafkaTopicStore(this.clients, this.writer);
		store.start();
		await().atMost(TIMEOUT).until(store::isCaughtUp);
		return store;
	}

	private static Topic topic(String id, String name) {
		return new Topic(id, name, null, null, null, null, null, null, null, null, null, null).withDefaults();
	}

	@Test
	void writesAreReadBackBeforeTheyCompleteAndSurviveANewReader() {
		try (KafkaTopicStore store = startStore()) {
			StoredTopic first = store.save(topic("a", "first")).block(TIMEOUT);
			assertThat(store.get("a")).contains(first);
			StoredTopic second = store.save(topic("a", "second")).block(TIMEOUT);
			assertThat(second.revision()).isGreaterThan(first.revision());
			store.save(topic("b", "other")).block(TIMEOUT);
			store.delete("b").block(TIMEOUT);
			assertThat(store.get("b")).isEmpty();
		}
		try (KafkaTopicStore reader = startStore()) {
			assertThat(reader.list()).singleElement()
				.satisfies((stored) -> assertThat(stored.topic().name()).isEqualTo("second"));
		}
	}

	@Test
	void changesAreAnnouncedAsTheyAreApplied() {
		try (KafkaTopicStore store = startStore()) {
			CompletableFuture<List<TopicChange>> changes = store.changes().take(2).collectList().toFuture();
			store.save(topic("c", "c")).then(store.delete("c")).block(TIMEOUT);
			assertThat(changes.join()).extracting(TopicChange::id, TopicChange::isDeletion)
				.containsExactly(tuple("c", false), tuple("c", true));
		}
	}

}
