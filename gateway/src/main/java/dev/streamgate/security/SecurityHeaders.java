package dev.streamgate.security;

import org.springframework.http.HttpHeaders;
import org.springframework.security.web.server.header.ServerHttpHeadersWriter;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Three of the headers Spring Security writes on every answer by default, in one writer:
 * {@code X-Content-Type-Options: nosniff}, {@code X-Frame-Options: DENY} and
 * {@code X-XSS-Protection: 0}, each unless the answer already has it.
 * <p>
 * Spring Security's writers copy their header's name into new case-insensitive sets on
 * every answer: its four static writers were 5 % of the bytes the gateway allocated per
 * publication (allocation profile). This one sets the same headers and copies nothing.
 * The fourth, {@code Referrer-Policy}, stays Spring Security's: it cannot be turned off.
 */
final class SecurityHeaders implements ServerHttpHeadersWriter {

	private static final String[] NAMES = { "X-Content-Type-Options", "X-Frame-Options", "X-XSS-Protection" };

	private static final String[] VALUES = { "nosniff", "DENY", "0" };

	@Override
	public Mono<Void> writeHttpHeaders(ServerWebExchange exchange) {
		HttpHeaders headers = exchange.getResponse().getHeaders();
		for (int i = 0; i < NAMES.length; i++) {
			if (!headers.containsHeader(NAMES[i])) {
				headers.set(NAMES[i], VALUES[i]);
			}
		}
		return Mono.empty();
	}

}
