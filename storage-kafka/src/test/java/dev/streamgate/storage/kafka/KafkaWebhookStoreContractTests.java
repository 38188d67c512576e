package dev.streamgate.storage.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import dev.streamgate.core.storage.WebhookStore;
import dev.streamgate.core.storage.WebhookStoreContract;
import dev.streamgate.support.TestKafka;

/**
 * The webhook store contract over a Kafka broker.
 */
class KafkaWebhookStoreContractTests extends WebhookStoreContract {

	private KafkaClients clients;

	private Admin admin;

	private KafkaWriter writer;

	private final List<KafkaWebhookStore> started = new ArrayList<>();

	@BeforeEach
	void connect() {
		this.clients = new KafkaClients(TestKafka.bootstrapServers(), Map.of(),
				ConfigTopicsIntegrationTests.properties(TestKafka.uniquePrefix()));
		this.admin = this.clients.admin();
		new ConfigTopics(this.admin, this.clients, TestKafka.eventStorage()).ensure();
		this.writer = this.clients.writer("contract");
	}

	@AfterEach
	void close() {
		this.started.forEach(KafkaWebhookStore::close);
		this.writer.close();
		this.admin.close();
	}

	@Override
	protected WebhookStore store() {
		KafkaWebhookStore store = new KafkaWebhookStore(this.clients, this.writer);
		store.start();
		store.awaitCaughtUp(TIMEOUT);
		this.started.add(store);
		return store;
	}

}
