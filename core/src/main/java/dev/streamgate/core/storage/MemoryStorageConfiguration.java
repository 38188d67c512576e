package dev.streamgate.core.storage;

import java.time.Clock;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.streamgate.core.event.MemoryEventLog;
import dev.streamgate.core.event.MemoryEventTypeCounts;
import dev.streamgate.core.event.MemoryProperties;
import dev.streamgate.core.event.MemorySnapshotStore;
import dev.streamgate.core.topic.MemoryTopicStore;
import dev.streamgate.core.webhook.MemoryAttemptLog;
import dev.streamgate.core.webhook.MemoryDeliveryStates;
import dev.streamgate.core.webhook.MemoryWebhookStore;

/**
 * Wires a node that keeps everything in its own memory
 * ({@code streamgate.storage=memory}): no Kafka client, no broker, nothing kept across a
 * restart. Every port of the storage has its memory implementation here; Kafka publishers
 * and Kafka subscriptions are refused.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnStorage(StorageMode.MEMORY)
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
	KafkaChannelsRefused kafkaChannels() {
		return new KafkaChannelsRefused();
	}

}
