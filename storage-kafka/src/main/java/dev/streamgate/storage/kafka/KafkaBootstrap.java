package dev.streamgate.storage.kafka;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Where clients find Kafka: the configured brokers, or an embedded broker started for
 * standalone mode and stopped with the application.
 */
public final class KafkaBootstrap implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(KafkaBootstrap.class);

	private final String bootstrapServers;

	private final EmbeddedKafkaBroker embedded;

	private KafkaBootstrap(String bootstrapServers, EmbeddedKafkaBroker embedded) {
		this.bootstrapServers = bootstrapServers;
		this.embedded = embedded;
	}

	static KafkaBootstrap from(KafkaConnectionProperties connection, EmbeddedKafkaProperties embedded) {
		if (!connection.bootstrapServers().isEmpty()) {
			String servers = String.join(",", connection.bootstrapServers());
			logger.info("Kafka: using the brokers at " + servers + " (spring.kafka.bootstrap-servers); "
					+ "no embedded broker started");
			return new KafkaBootstrap(servers, null);
		}
		EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(embedded.dataDir(), embedded.port());
		logger.info("Kafka: started the embedded KRaft broker at " + broker.bootstrapServers() + " with storage in "
				+ broker.dataDir() + " (standalone mode: spring.kafka.bootstrap-servers is not set)");
		return new KafkaBootstrap(broker.bootstrapServers(), broker);
	}

	public String bootstrapServers() {
		return this.bootstrapServers;
	}

	public boolean isEmbedded() {
		return this.embedded != null;
	}

	@Override
	public void close() {
		if (this.embedded != null) {
			logger.info("Kafka: stopping the embedded broker");
			this.embedded.close();
		}
	}

}
