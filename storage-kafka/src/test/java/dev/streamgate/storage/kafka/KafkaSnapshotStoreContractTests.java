package dev.streamgate.storage.kafka;

import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import dev.streamgate.core.storage.SnapshotStore;
import dev.streamgate.core.storage.SnapshotStoreContract;
import dev.streamgate.support.TestKafka;

/**
 * The snapshot store contract over a Kafka broker.
 */
class KafkaSnapshotStoreContractTests extends SnapshotStoreContract {

	private Admin admin;

	private KafkaWriter writer;

	private KafkaSnapshotStore store;

	@BeforeEach
	void start() {
		KafkaClients clients = new KafkaClients(TestKafka.bootstrapServers(), Map.of(),
				ConfigTopicsIntegrationTests.properties(TestKafka.uniquePrefix()));
		this.admin = clients.admin();
		new ConfigTopics(this.admin, clients, TestKafka.eventStorage()).ensure();
		this.writer = clients.writer("contract");
		this.store = new KafkaSnapshotStore(clients, this.writer);
		this.store.start();
	}

	@AfterEach
	void close() {
		this.store.close();
		this.writer.close();
		this.admin.close();
	}

	@Override
	protected SnapshotStore store() {
		return this.store;
	}

}
