package dev.streamgate.publish.ingest;

import java.time.Clock;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.storage.IdempotencyProperties;
import dev.streamgate.core.storage.IdempotencyStore;

/**
 * Wires the ingest role. Its {@link IdempotencyStore} comes from the storage.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole(Role.INGEST)
@EnableConfigurationProperties({ IngestProperties.class, IdempotencyProperties.class })
public class IngestConfiguration {

	@Bean
	IdempotencyKeys idempotencyKeys(IdempotencyProperties idempotency, IdempotencyStore idempotencyStore) {
		return new IdempotencyKeys(idempotency.idempotencyWindow(), idempotencyStore, Clock.systemUTC());
	}

}
