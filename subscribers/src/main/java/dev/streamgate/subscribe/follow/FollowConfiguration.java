package dev.streamgate.subscribe.follow;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.streamgate.core.event.MemoryBudget;
import dev.streamgate.core.event.MemoryProperties;
import dev.streamgate.core.event.SnapshotDocuments;
import dev.streamgate.core.storage.EventLog;
import dev.streamgate.core.storage.EventTail;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.trace.EventTracing;

/**
 * Wires the topic followers every subscriber channel shares.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(FollowProperties.class)
public class FollowConfiguration {

	@Bean
	TopicFollowers topicFollowers(EventLog eventLog, EventTail eventTail, SnapshotDocuments snapshotDocuments,
			TopicStore topicStore, FollowProperties properties, MemoryBudget recentEventsBudget, MeterRegistry meters,
			ObjectProvider<EventTracing> tracing) {
		return new TopicFollowers(eventLog, eventTail, snapshotDocuments, topicStore, properties, recentEventsBudget,
				meters, tracing.getIfAvailable(() -> EventTracing.NONE));
	}

	@Bean
	ClientBuffers clientBuffers(MemoryProperties memory, MeterRegistry meters) {
		ClientBuffers buffers = new ClientBuffers(memory.clientBuffersBytes(), memory.clientBuffer().toBytes());
		Gauge.builder("streamgate.memory.client.buffers", buffers, ClientBuffers::used)
			.description("Bytes held for connections that they have not read yet, all connections together")
			.baseUnit("bytes")
			.register(meters);
		Gauge.builder("streamgate.memory.client.buffers.max", buffers, ClientBuffers::max)
			.description("The budget of connections' buffers (streamgate.memory.client-buffers)")
			.baseUnit("bytes")
			.register(meters);
		return buffers;
	}

}
