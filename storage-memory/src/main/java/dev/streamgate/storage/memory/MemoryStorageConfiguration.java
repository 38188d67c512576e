package dev.streamgate.storage.memory;

import java.time.Clock;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.streamgate.core.event.MemoryProperties;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.storage.ConditionalOnStorage;
import dev.streamgate.core.storage.IdempotencyProperties;
import dev.streamgate.core.storage.StorageMode;

/**
 * Wires a node that keeps everything in its own memory
 * ({@code streamgate.storage=memory}): no Kafka client, no broker, nothing kept across a
 * restart. Every port of the storage has its memory implementation here; Kafka publishers
 * and Kafka subscriptions are refused.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnStorage(StorageMode.MEMORY)
@EnableConfigurationProperties(IdempotencyProperties.class)
public class MemoryStorageConfiguration {

	@Bean
	MemoryTopicStore topicStore() {
		return new MemoryTopicStore();
	}

	@Bean
	MemoryEventLog eventLog(MemoryProperties memory, ObjectProvider<MeterRegistry> meters) {
		MemoryEventLog log = new MemoryEventLog(Clock.systemUTC(), memory.topicEvents().toBytes(),
				memory.storedEventsBytes());
		meters.ifAvailable(
				(registry) -> Gauge.builder("streamgate.memory.stored.events", log, MemoryEventLog::storedBytes)
					.description("Bytes of events all topics keep in memory (streamgate.storage=memory)")
					.baseUnit("bytes")
					.register(registry));
		return log;
	}

	@Bean
	MemorySnapshotStore snapshotStore() {
		return new MemorySnapshotStore();
	}

	@Bean
	MemoryWebhookStore webhookStore() {
		return new MemoryWebhookStore();
	}

	@Bean
	MemoryDeliveryStates deliveryStates() {
		return new MemoryDeliveryStates();
	}

	@Bean
	MemoryEventTypeCounts eventTypeCounts() {
		return new MemoryEventTypeCounts();
	}

	@Bean
	MemoryAttemptLog attemptLog() {
		return new MemoryAttemptLog();
	}

	@Bean
	MemoryLeases leases() {
		return new MemoryLeases();
	}

	@Bean
	MemoryPresence presence() {
		return new MemoryPresence();
	}

	@Bean
	@ConditionalOnRole(Role.INGEST)
	MemoryIdempotencyStore idempotencyStore(IdempotencyProperties properties) {
		return new MemoryIdempotencyStore(properties.idempotencyWindow(), Clock.systemUTC(),
				properties.idempotencyMemory().toBytes());
	}

	@Bean
	KafkaChannelsRefused kafkaChannels() {
		return new KafkaChannelsRefused();
	}

}
