package dev.streamgate.subscribe.webhook;

import java.time.Clock;
import java.util.UUID;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.streamgate.core.egress.EgressGuard;
import dev.streamgate.core.event.SnapshotDocuments;
import dev.streamgate.core.oauth.AccessTokens;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.storage.AttemptLog;
import dev.streamgate.core.storage.DeliveryStates;
import dev.streamgate.core.storage.KafkaSink;
import dev.streamgate.core.storage.Leases;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.storage.WebhookStore;
import dev.streamgate.core.trace.EventTracing;
import dev.streamgate.subscribe.follow.TopicFollowers;

/**
 * Wires webhook delivery: the sender (also used by the admin API's test ping) and, on
 * nodes of the webhook role, the dispatchers.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(WebhookProperties.class)
public class WebhookConfiguration {

	@Bean
	WebhookSender webhookSender(EgressGuard egressGuard, WebhookProperties properties, AccessTokens accessTokens,
			KafkaSink kafkaSink) {
		// Endpoints see which node delivers to them.
		String userAgent = "streamgate-webhook/1 (node " + UUID.randomUUID().toString().substring(0, 8) + ")";
		return new WebhookSender(egressGuard, properties, userAgent, Clock.systemUTC(), accessTokens, kafkaSink);
	}

	@Bean
	@ConditionalOnRole(Role.WEBHOOK)
	Dispatchers webhookDispatchers(TopicStore topicStore, WebhookStore webhookStore, DeliveryStates deliveryStates,
			AttemptLog attemptLog, Leases leases, TopicFollowers topicFollowers, SnapshotDocuments snapshotDocuments,
			WebhookSender webhookSender, WebhookProperties properties, MeterRegistry meters,
			ObjectProvider<EventTracing> tracing) {
		Dispatcher.Services services = new Dispatcher.Services(webhookSender, snapshotDocuments, deliveryStates,
				new DeliveryCommits(deliveryStates), webhookStore, attemptLog, properties,
				new WebhookMetrics(meters, webhookStore), Clock.systemUTC(),
				tracing.getIfAvailable(() -> EventTracing.NONE));
		return new Dispatchers(topicStore, leases, new TopicFeeds(topicFollowers), services);
	}

}
