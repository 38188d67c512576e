package dev.streamgate.diagnostics;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The node's watch over itself.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(DiagnosticsProperties.class)
public class DiagnosticsConfiguration {

	@Bean
	EventLoopWatchdog eventLoopWatchdog(DiagnosticsProperties properties) {
		return new EventLoopWatchdog(properties.blockedEventLoop());
	}

}
