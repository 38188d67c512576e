package dev.streamgate.web;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Bounds the time a request body may take (Reactor Netty answers 408 and closes the
 * connection beyond it).
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(RequestTimeoutProperties.class)
public class RequestTimeoutConfiguration {

	@Bean
	NettyServerCustomizer requestBodyTimeouts(RequestTimeoutProperties properties) {
		return (server) -> server.readTimeout(properties.readTimeout()).requestTimeout(properties.requestTimeout());
	}

}
