package dev.streamgate.core.oauth;

import java.time.Clock;
import java.time.Duration;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.streamgate.core.egress.EgressGuard;

/**
 * Wires the access tokens that pollers and webhooks with client credentials share.
 */
@Configuration(proxyBeanMethods = false)
public class OAuthConfiguration {

	/** How long a token request may take. */
	static final Duration TOKEN_TIMEOUT = Duration.ofSeconds(10);

	@Bean
	AccessTokens accessTokens(EgressGuard egressGuard) {
		return new AccessTokens(egressGuard, TOKEN_TIMEOUT, Clock.systemUTC());
	}

}
