package dev.streamgate.subscribe.ws;

import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.config.WebFluxConfigurer;
import org.springframework.web.reactive.handler.SimpleUrlHandlerMapping;
import org.springframework.web.reactive.socket.server.WebSocketService;
import org.springframework.web.reactive.socket.server.support.HandshakeWebSocketService;
import org.springframework.web.reactive.socket.server.upgrade.ReactorNettyRequestUpgradeStrategy;
import org.springframework.web.server.WebFilter;
import reactor.netty.http.server.WebsocketServerSpec;

import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.SubscriberCounts;
import dev.streamgate.core.web.StreamAccessLog;
import dev.streamgate.core.web.SubscribeAccess;
import dev.streamgate.subscribe.follow.ClientBuffers;
import dev.streamgate.subscribe.follow.TopicFollowers;

/**
 * Wires WebSocket subscribers on nodes of the sse role.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole(Role.STREAM)
@EnableConfigurationProperties(WsProperties.class)
public class WsConfiguration {

	@Bean
	TopicSockets topicSockets(TopicFollowers topicFollowers, TopicStore topicStore, SubscribeAccess subscribeAccess,
			WsProperties properties, MeterRegistry meters, ClientBuffers clientBuffers,
			ObjectProvider<StreamAccessLog> accessLog) {
		return new TopicSockets(topicFollowers, topicStore, subscribeAccess, properties, meters, clientBuffers,
				accessLog.getIfAvailable(() -> StreamAccessLog.OFF));
	}

	@Bean
	WebFilter topicSocketConnections(TopicSockets topicSockets) {
		return topicSockets::rememberConnection;
	}

	@Bean
	HandlerMapping topicSocketsMapping(TopicSockets topicSockets) {
		return new SimpleUrlHandlerMapping(Map.of(TopicSockets.PATH, topicSockets), Ordered.HIGHEST_PRECEDENCE);
	}

	/**
	 * WebSocket upgrades through Reactor Netty, with permessage-deflate offered to the
	 * clients that ask for it unless {@code streamgate.ws.compression} is off.
	 */
	@Bean
	WebFluxConfigurer webSocketCompression(WsProperties properties) {
		return new WebFluxConfigurer() {
			@Override
			public WebSocketService getWebSocketService() {
				return new HandshakeWebSocketService(new ReactorNettyRequestUpgradeStrategy(
						// Every message is compressed on its own: a client that asks the
						// server to take no context over from one message to the next is
						// served as it asks.
						() -> WebsocketServerSpec.builder()
							.compress(properties.compression())
							.compressionAllowServerNoContext(true)));
			}
		};
	}

	@Bean
	SubscriberCounts wsSubscriberCounts(TopicFollowers topicFollowers) {
		return topicFollowers.countSubscriptions(TopicSockets.CHANNEL);
	}

}
