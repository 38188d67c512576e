package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import dev.streamgate.core.storage.IdempotencyStore;
import dev.streamgate.core.storage.IdempotencyStoreContract;
import dev.streamgate.support.TestKafka;

/**
 * The Idempotency-Key store contract over a Kafka broker.
 */
class KafkaIdempotencyStoreContractTests extends IdempotencyStoreContract {

	private Admin admin;

	private KafkaIdempotencyStore store;

	@BeforeEach
	void start() {
		KafkaClients clients = new KafkaClients(TestKafka.bootstrapServers(), Map.of(),
				ConfigTopicsIntegrationTests.properties(TestKafka.uniquePrefix()));
		this.admin = clients.admin();
		new ConfigTopics(this.admin, clients, TestKafka.eventStorage()).ensure();
		this.store = KafkaIdempotencyStore.start(clients, Duration.ofMinutes(10), 1 << 20);
	}

	@AfterEach
	void close() {
		this.store.close();
		this.admin.close();
	}

	@Override
	protected IdempotencyStore store() {
		return this.store;
	}

}
