package dev.streamgate.publish.ingest;

import java.time.Clock;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.streamgate.core.kafka.KafkaClients;
import dev.streamgate.core.kafka.KafkaIdempotencyStore;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;

/**
 * Wires the ingest role.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole(Role.INGEST)
@EnableConfigurationProperties(IngestProperties.class)
public class IngestConfiguration {

	@Bean(destroyMethod = "close")
	KafkaIdempotencyStore idempotencyStore(KafkaClients kafkaClients, IngestProperties properties) {
		return KafkaIdempotencyStore.start(kafkaClients, properties.idempotencyWindow(), properties.idempotencyKeys());
	}

	@Bean
	IdempotencyKeys idempotencyKeys(IngestProperties properties, KafkaIdempotencyStore idempotencyStore) {
		return new IdempotencyKeys(properties, idempotencyStore, Clock.systemUTC());
	}

}
