package dev.streamgate.web;

import java.net.URI;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.Resource;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;

/**
 * The browser console at {@code /console/} ({@code /} leads there): static files from the
 * jar ({@code static/console}), served on nodes of the admin role. It uses the public API
 * only, with the token the user enters.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole(Role.ADMIN)
public class ConsoleConfiguration {

	/** Everything the console loads comes from the gateway itself. */
	private static final String POLICY = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'";

	@Bean
	RouterFunction<ServerResponse> consoleRoutes(@Value("classpath:/static/console/index.html") Resource index) {
		return RouterFunctions
			// Where a browser pointed at the gateway lands.
			.route(RequestPredicates.GET("/"),
					(request) -> ServerResponse.temporaryRedirect(URI.create("/console/")).build())
			.andRoute(RequestPredicates.GET("/console"),
					(request) -> ServerResponse.permanentRedirect(URI.create("/console/")).build())
			.andRoute(RequestPredicates.GET("/console/"),
					(request) -> ServerResponse.ok()
						.contentType(MediaType.TEXT_HTML)
						.header("Content-Security-Policy", POLICY)
						.bodyValue(index));
	}

}
