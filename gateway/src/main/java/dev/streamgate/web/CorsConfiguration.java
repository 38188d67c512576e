package dev.streamgate.web;

import java.time.Duration;
import java.util.List;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.cors.reactive.UrlBasedCorsConfigurationSource;

/**
 * CORS for the API and the streams, so that an EventSource or fetch from another origin
 * works.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(CorsProperties.class)
public class CorsConfiguration {

	/**
	 * The CORS rules, applied by the security filter chain so that even a 401 or 403
	 * carries them and a browser can read it.
	 * @param properties the allowed origins
	 * @return the rules per path
	 */
	@Bean
	public UrlBasedCorsConfigurationSource corsConfigurationSource(CorsProperties properties) {
		org.springframework.web.cors.CorsConfiguration cors = new org.springframework.web.cors.CorsConfiguration();
		boolean any = properties.allowedOrigins().contains("*");
		if (any) {
			cors.addAllowedOriginPattern("*");
		}
		else {
			cors.setAllowedOrigins(properties.allowedOrigins());
			// Explicit origins may send the streamgate_token cookie.
			cors.setAllowCredentials(true);
		}
		cors.setAllowedMethods(List.of("GET", "POST", "PATCH", "DELETE", "OPTIONS"));
		cors.setAllowedHeaders(List.of("Authorization", "Content-Type", "If-Match", "Idempotency-Key", "Last-Event-ID",
				"Cache-Control"));
		cors.setExposedHeaders(List.of("ETag", "Location", "Retry-After", "Idempotent-Replayed", "Last-Event-ID"));
		cors.setMaxAge(Duration.ofHours(1));
		UrlBasedCorsConfigurationSource source = new UrlBasedCorsConfigurationSource();
		source.registerCorsConfiguration("/api/**", cors);
		// The Mercure hub: its subscribers and publishers are often pages of other
		// origins.
		source.registerCorsConfiguration("/.well-known/mercure", cors);
		source.registerCorsConfiguration("/.well-known/mercure/**", cors);
		return source;
	}

}
