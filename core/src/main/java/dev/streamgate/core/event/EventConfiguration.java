package dev.streamgate.core.event;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.streamgate.core.topic.TopicStore;

/**
 * Wires publishing, which every role that writes events shares.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(EventProperties.class)
public class EventConfiguration {

	@Bean
	EventPublisher eventPublisher(EventLog eventLog, SnapshotStore snapshotStore, TopicStore topicStore,
			EventProperties properties) {
		EventPublisher publisher = new EventPublisher(eventLog, snapshotStore, properties.checkpointEvery(),
				properties.checkpointInterval());
		topicStore.changes()
			.filter(TopicStore.TopicChange::isDeletion)
			.subscribe((change) -> publisher.forget(change.id()));
		return publisher;
	}

}
