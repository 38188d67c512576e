package dev.streamgate.security;

import java.util.List;

import org.springframework.http.HttpCookie;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;
import org.springframework.security.web.server.authentication.ServerAuthenticationConverter;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Finds the request's token: the {@code Authorization: Bearer} header everywhere, and on
 * streams and WebSockets also the {@code access_token} query parameter and the
 * {@code streamgate_token} cookie, because a browser's EventSource cannot set headers.
 * The header wins.
 */
final class TokenConverter implements ServerAuthenticationConverter {

	static final String QUERY_PARAMETER = "access_token";

	static final String COOKIE = "streamgate_token";

	private static final String STREAMS = "/api/v1/stream";

	static final String SOCKETS = "/api/v1/ws";

	private static final String DEMO = "/demo/";

	@Override
	public Mono<Authentication> convert(ServerWebExchange exchange) {
		ServerHttpRequest request = exchange.getRequest();
		if (request.getPath().pathWithinApplication().value().startsWith(DEMO)) {
			// The demo source and receiver take what pollers and webhooks send them,
			// their own credentials included.
			return Mono.empty();
		}
		String header = request.getHeaders().getFirst(HttpHeaders.AUTHORIZATION);
		if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7) && !header.substring(7).isBlank()) {
			return Mono.just(new BearerTokenAuthenticationToken(header.substring(7).strip()));
		}
		String path = request.getPath().pathWithinApplication().value();
		if (path.equals(STREAMS) || path.startsWith(STREAMS + "/") || path.equals(SOCKETS)) {
			String query = request.getQueryParams().getFirst(QUERY_PARAMETER);
			if (query != null && !query.isBlank()) {
				return Mono.just(new BearerTokenAuthenticationToken(query));
			}
			List<HttpCookie> cookies = request.getCookies().get(COOKIE);
			if (cookies != null && !cookies.isEmpty() && !cookies.get(0).getValue().isBlank()) {
				return Mono.just(new BearerTokenAuthenticationToken(cookies.get(0).getValue()));
			}
		}
		return Mono.empty();
	}

}
