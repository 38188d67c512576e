package dev.streamgate.mercure;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

/**
 * The {@code Link} to the Mercure hub on every response of the gateway, whatever its
 * roles ({@code streamgate.mercure.discovery}): how a Mercure client finds the hub of the
 * resources it reads (the {@code mercure} link relation).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("streamgate.mercure.discovery")
public class MercureDiscovery {

	@Bean
	WebFilter mercureDiscoveryLink(@Value("${streamgate.mercure.hub-url:/.well-known/mercure}") String hubUrl) {
		String link = "<" + hubUrl + ">; rel=\"mercure\"";
		return (exchange, chain) -> {
			if (!exchange.getRequest().getPath().value().startsWith(HubController.PATH)) {
				exchange.getResponse().beforeCommit(() -> {
					exchange.getResponse().getHeaders().add(HttpHeaders.LINK, link);
					return Mono.empty();
				});
			}
			return chain.filter(exchange);
		};
	}

}
