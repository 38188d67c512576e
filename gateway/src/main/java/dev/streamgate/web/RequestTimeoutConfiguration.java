package dev.streamgate.web;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Bounds the time a request's headers and its body may take (408 and the connection
 * closed beyond them).
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(RequestTimeoutProperties.class)
public class RequestTimeoutConfiguration {

	@Bean
	NettyServerCustomizer requestBodyTimeouts(RequestTimeoutProperties properties) {
		return (server) -> server.readTimeout(properties.readTimeout())
			.requestTimeout(properties.requestTimeout())
			.doOnChannelInit(
					(observer, channel, remote) -> HeaderReadTimeout.install(channel, properties.headerTimeout()));
	}

}
