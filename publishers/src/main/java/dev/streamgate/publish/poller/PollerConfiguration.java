package dev.streamgate.publish.poller;

import java.util.UUID;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.streamgate.core.egress.EgressGuard;
import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.oauth.AccessTokens;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.storage.Leases;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.trace.EventTracing;

/**
 * Wires the poller role.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole(Role.HTTP_POLLER)
@EnableConfigurationProperties(PollerProperties.class)
public class PollerConfiguration {

	@Bean
	Pollers pollers(TopicStore topicStore, Leases leases, EgressGuard egressGuard, EventPublisher eventPublisher,
			PollerProperties properties, MeterRegistry meters, AccessTokens accessTokens,
			ObjectProvider<EventTracing> tracing) {
		// Sources see which node polls them, which makes double polling visible in their
		// logs.
		String userAgent = "streamgate-poller/1 (node " + UUID.randomUUID().toString().substring(0, 8) + ")";
		SourceClient client = new SourceClient(egressGuard, properties, userAgent, accessTokens);
		return new Pollers(topicStore, leases, client, eventPublisher, meters,
				tracing.getIfAvailable(() -> EventTracing.NONE));
	}

}
