package dev.streamgate.mercure;

import java.time.Duration;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.storage.EventLog;
import dev.streamgate.core.storage.Presence;
import dev.streamgate.core.storage.TopicStore;

/**
 * Wires the mercure role: the hub, its tokens, its topic made once the node is ready, and
 * the discovery link on the gateway's responses when asked for.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole(Role.MERCURE)
@EnableConfigurationProperties(MercureProperties.class)
public class MercureConfiguration {

	private static final Log logger = LogFactory.getLog(MercureConfiguration.class);

	@Bean
	MercureHub mercureHub(TopicStore topicStore, EventLog eventLog, EventPublisher eventPublisher,
			MercureProperties properties) {
		return new MercureHub(topicStore, eventLog, eventPublisher, properties);
	}

	@Bean
	ActiveSubscriptions mercureSubscriptions(Presence presence, MercureHub hub) {
		return new ActiveSubscriptions(presence, hub);
	}

	/**
	 * Publishes the end of the subscriptions of nodes that die, once the node is ready,
	 * when active subscriptions are on.
	 */
	@Bean
	@ConditionalOnBooleanProperty("streamgate.mercure.subscriptions")
	WhileReady mercureOrphans(ActiveSubscriptions subscriptions) {
		return new WhileReady(subscriptions::settleOrphans);
	}

	@Bean
	HubTokens mercureTokens(MercureProperties properties) {
		HubTokens tokens = HubTokens.of(properties);
		if (properties.publisherKey() == null && properties.subscriberKey() == null && properties.jwksUri() == null) {
			// A standalone node runs every role: a hub nobody configured is no fault.
			logger.info("The Mercure hub at " + HubController.PATH
					+ " has no key (streamgate.mercure.publisher-key, subscriber-key or jwks-uri): "
					+ "it refuses every token, so nobody can publish"
					+ (properties.anonymous() ? "" : " or subscribe"));
		}
		return tokens;
	}

	/**
	 * Gives the hub's topic, when there is one, the configured retention once the node is
	 * ready: again and again until it applies or the node stops.
	 */
	@Bean
	WhileReady mercureTopic(MercureHub hub) {
		return new WhileReady(() -> Mono.defer(hub::retainExisting)
			.retryWhen(Retry.fixedDelay(Long.MAX_VALUE, Duration.ofSeconds(2))
				.doBeforeRetry((signal) -> logger.debug("The hub's retention does not apply yet: " + signal.failure())))
			.subscribe());
	}

	/** Work started once the node is ready, and stopped with it. */
	static final class WhileReady implements ApplicationListener<ApplicationReadyEvent>, DisposableBean {

		private final Supplier<Disposable> start;

		private volatile Disposable running;

		WhileReady(Supplier<Disposable> start) {
			this.start = start;
		}

		@Override
		public void onApplicationEvent(ApplicationReadyEvent event) {
			this.running = this.start.get();
		}

		@Override
		public void destroy() {
			Disposable started = this.running;
			if (started != null) {
				started.dispose();
			}
		}

	}

}
