package dev.streamgate.publish.ingest;

import java.time.Clock;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.streamgate.core.event.IdempotencyStore;
import dev.streamgate.core.event.MemoryIdempotencyStore;
import dev.streamgate.core.kafka.KafkaClients;
import dev.streamgate.core.kafka.KafkaIdempotencyStore;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.storage.ConditionalOnStorage;
import dev.streamgate.core.storage.StorageMode;

/**
 * Wires the ingest role.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole(Role.INGEST)
@EnableConfigurationProperties(IngestProperties.class)
public class IngestConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnStorage(StorageMode.KAFKA)
	KafkaIdempotencyStore idempotencyStore(KafkaClients kafkaClients, IngestProperties properties,
			ObjectProvider<MeterRegistry> meters) {
		KafkaIdempotencyStore store = KafkaIdempotencyStore.start(kafkaClients, properties.idempotencyWindow(),
				properties.idempotencyMemory().toBytes());
		meters.ifAvailable((registry) -> {
			Gauge.builder("streamgate.idempotency.keys", store, KafkaIdempotencyStore::indexedKeys)
				.description("Idempotency-Keys answered within the window, indexed on this node")
				.register(registry);
			Gauge.builder("streamgate.idempotency.index", store, KafkaIdempotencyStore::indexBytes)
				.description("Memory the index of Idempotency-Key answers takes")
				.baseUnit("bytes")
				.register(registry);
		});
		return store;
	}

	@Bean
	@ConditionalOnStorage(StorageMode.MEMORY)
	MemoryIdempotencyStore memoryIdempotencyStore(IngestProperties properties) {
		return new MemoryIdempotencyStore(properties.idempotencyWindow(), Clock.systemUTC(),
				properties.idempotencyMemory().toBytes());
	}

	@Bean
	IdempotencyKeys idempotencyKeys(IngestProperties properties, IdempotencyStore idempotencyStore) {
		return new IdempotencyKeys(properties, idempotencyStore, Clock.systemUTC());
	}

}
