package dev.streamgate.core.event;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.Disposable;

import dev.streamgate.core.storage.EventLog;
import dev.streamgate.core.storage.SnapshotStore;
import dev.streamgate.core.storage.TopicStore;

/**
 * Wires publishing, which every role that writes events shares.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({ EventProperties.class, MemoryProperties.class, EventStorageProperties.class })
public class EventConfiguration {

	@Bean
	SnapshotDocuments snapshotDocuments(EventLog eventLog, SnapshotStore snapshotStore) {
		return new SnapshotDocuments(eventLog, snapshotStore);
	}

	@Bean
	EventPublisher eventPublisher(EventLog eventLog, SnapshotStore snapshotStore, SnapshotDocuments snapshotDocuments,
			TopicStore topicStore, EventProperties properties) {
		EventPublisher publisher = new EventPublisher(eventLog, snapshotStore, snapshotDocuments,
				properties.checkpointEvery(), properties.checkpointInterval());
		topicStore.changes()
			.filter(TopicStore.TopicChange::isDeletion)
			.subscribe((change) -> publisher.forget(change.id()));
		return publisher;
	}

	/**
	 * Forgets the meters of a deleted topic (every meter tagged with its id), so that
	 * topics created and deleted by the thousand do not grow the registry and the
	 * Prometheus page for ever.
	 */
	@Bean(destroyMethod = "dispose")
	Disposable deletedTopicMeters(TopicStore topicStore, MeterRegistry meters) {
		TopicMeters topicMeters = new TopicMeters(meters);
		return topicStore.changes()
			.filter(TopicStore.TopicChange::isDeletion)
			.subscribe((change) -> topicMeters.forget(change.id()));
	}

	@Bean
	MemoryBudget recentEventsBudget(MemoryProperties properties, MeterRegistry meters) {
		MemoryBudget budget = new MemoryBudget(properties.recentEventsBytes());
		Gauge.builder("streamgate.memory.recent.events", budget, MemoryBudget::used)
			.description("Bytes of recent events kept in memory for resumes, all topics together")
			.baseUnit("bytes")
			.register(meters);
		Gauge.builder("streamgate.memory.recent.events.max", budget, MemoryBudget::max)
			.description("The budget of recent events (streamgate.memory.recent-events)")
			.baseUnit("bytes")
			.register(meters);
		return budget;
	}

}
