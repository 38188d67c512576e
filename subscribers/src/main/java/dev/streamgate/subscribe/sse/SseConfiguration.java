package dev.streamgate.subscribe.sse;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.Disposable;

import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.topic.SubscriberCounts;
import dev.streamgate.subscribe.follow.TopicFollowers;

/**
 * Wires the sse role.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole(Role.STREAM)
@EnableConfigurationProperties(SseProperties.class)
public class SseConfiguration {

	@Bean
	SubscriberCounts sseSubscriberCounts(TopicFollowers topicFollowers) {
		return topicFollowers.countSubscriptions(StreamController.CHANNEL);
	}

	/** Heartbeat comments keep idle streams open through proxies. */
	@Bean(destroyMethod = "dispose")
	Disposable sseHeartbeats(TopicFollowers topicFollowers, SseProperties properties) {
		return topicFollowers.heartbeats(properties.heartbeat());
	}

}
