package dev.streamgate.publish.mirror;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.storage.Leases;
import dev.streamgate.core.storage.Mirroring;
import dev.streamgate.core.storage.TopicStore;

/**
 * Wires {@code kafka} publishers: part of the poller role, which runs every publisher
 * that fetches rather than receives.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole(Role.KAFKA_PUBLISHER)
public class MirrorConfiguration {

	@Bean
	Mirrors mirrors(TopicStore topicStore, Leases leases, Mirroring mirroring, EventPublisher eventPublisher,
			MeterRegistry meters) {
		return new Mirrors(topicStore, leases, mirroring, eventPublisher, meters);
	}

}
