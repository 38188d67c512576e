package dev.streamgate.storage.kafka;

import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Where Kafka is, under Spring's usual {@code spring.kafka} keys: no bootstrap servers
 * means standalone mode with the embedded broker. {@code properties} pass through to
 * every client (SASL, TLS).
 *
 * @param bootstrapServers the brokers, or empty to start the embedded broker
 * @param properties extra client properties
 */
@ConfigurationProperties("spring.kafka")
public record KafkaConnectionProperties(List<String> bootstrapServers, Map<String, String> properties) {

	public KafkaConnectionProperties {
		bootstrapServers = (bootstrapServers != null) ? List.copyOf(bootstrapServers) : List.of();
		properties = (properties != null) ? Map.copyOf(properties) : Map.of();
	}

}
