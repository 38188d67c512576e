package dev.streamgate.subscribe.sse;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.Disposable;

import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.topic.SubscriberCounts;
import dev.streamgate.core.web.StreamAccessLog;
import dev.streamgate.core.web.SubscribeAccess;
import dev.streamgate.subscribe.follow.ClientBuffers;
import dev.streamgate.subscribe.follow.TopicFollowers;

/**
 * Wires Server-Sent Events streams: the stream role's, and the Mercure hub's.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole({ Role.STREAM, Role.MERCURE })
@EnableConfigurationProperties(SseProperties.class)
public class SseConfiguration {

	@Bean
	SseResponder sseResponder(SseProperties properties, ClientBuffers clientBuffers,
			ObjectProvider<StreamAccessLog> accessLog, SubscribeAccess access) {
		return new SseResponder(properties, clientBuffers, accessLog.getIfAvailable(() -> StreamAccessLog.OFF), access);
	}

	@Bean
	@ConditionalOnRole(Role.STREAM)
	SubscriberCounts sseSubscriberCounts(TopicFollowers topicFollowers) {
		return topicFollowers.countSubscriptions(StreamController.CHANNEL);
	}

	/** Heartbeat comments keep idle streams open through proxies. */
	@Bean(destroyMethod = "dispose")
	Disposable sseHeartbeats(TopicFollowers topicFollowers, SseProperties properties) {
		return topicFollowers.heartbeats(properties.heartbeat());
	}

}
