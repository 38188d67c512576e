package dev.streamgate.storage.kafka;

import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import dev.streamgate.core.storage.EventLog;
import dev.streamgate.core.storage.EventLogContract;
import dev.streamgate.core.storage.EventTail;
import dev.streamgate.support.TestKafka;

/**
 * The event log contract over a Kafka broker: shared and dedicated topics, the node's
 * tail.
 */
class KafkaEventLogContractTests extends EventLogContract {

	private KafkaClients clients;

	private Admin admin;

	private KafkaWriter batchWriter;

	private PublicationSenders publications;

	private KafkaEventLog log;

	private KafkaEventTail tail;

	@BeforeEach
	void connect() {
		this.clients = new KafkaClients(TestKafka.bootstrapServers(), Map.of(),
				ConfigTopicsIntegrationTests.properties(TestKafka.uniquePrefix()));
		this.admin = this.clients.admin();
		this.batchWriter = this.clients.transactionalWriter("contract-batch");
		this.publications = this.clients.publicationSenders("contract");
		this.log = new KafkaEventLog(this.admin, this.clients, this.publications, this.batchWriter,
				TestKafka.eventStorage());
		this.tail = new KafkaEventTail(this.clients, this.log);
		new ConfigTopics(this.admin, this.clients, TestKafka.eventStorage()).ensure();
	}

	@AfterEach
	void close() {
		this.tail.close();
		this.log.close();
		this.publications.close();
		this.batchWriter.close();
		this.admin.close();
	}

	@Override
	protected EventLog log() {
		return this.log;
	}

	@Override
	protected EventTail tail() {
		return this.tail;
	}

}
