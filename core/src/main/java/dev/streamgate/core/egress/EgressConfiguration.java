package dev.streamgate.core.egress;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the egress guard that pollers and webhooks share.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(EgressProperties.class)
public class EgressConfiguration {

	@Bean
	EgressGuard egressGuard(EgressProperties properties) {
		return new EgressGuard(properties);
	}

}
