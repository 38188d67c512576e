package dev.streamgate.subscribe.sse;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.streamgate.core.event.EventLog;
import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.event.EventTail;
import dev.streamgate.core.event.MemoryBudget;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.topic.TopicStore;

/**
 * Wires the sse role.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole(Role.SSE)
@EnableConfigurationProperties(SseProperties.class)
public class SseConfiguration {

	@Bean
	TopicHubs topicHubs(EventLog eventLog, EventTail eventTail, EventPublisher eventPublisher, TopicStore topicStore,
			SseProperties properties, MemoryBudget recentEventsBudget, MeterRegistry meters) {
		return new TopicHubs(eventLog, eventTail, eventPublisher, topicStore, properties, recentEventsBudget, meters);
	}

}
