package dev.streamgate.security;

import java.net.URI;
import java.util.List;
import java.util.Locale;

import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

import dev.streamgate.core.problem.ProblemType;

/**
 * Refuses requests whose credentials are ambiguous or were sent by a page that may not
 * use them, before any token is read:
 * <ul>
 * <li>more than one {@code Authorization} header (400): which one a proxy or a server
 * takes differs, so none is taken;</li>
 * <li>a WebSocket upgrade authenticated by the {@code streamgate_token} cookie from an
 * origin other than the gateway's own or one listed in
 * {@code streamgate.cors.allowed-origins} (403). Browsers send cookies with WebSocket
 * upgrades from any page and CORS does not apply to them, so without this check any site
 * could open a subscriber's connection with the subscriber's rights.</li>
 * </ul>
 */
final class RequestChecks implements WebFilter {

	private final List<String> allowedOrigins;

	RequestChecks(List<String> allowedOrigins) {
		this.allowedOrigins = allowedOrigins.stream()
			.filter((origin) -> !origin.equals("*"))
			.map((origin) -> origin.toLowerCase(Locale.ROOT))
			.toList();
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		ServerHttpRequest request = exchange.getRequest();
		List<String> authorization = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
		if (authorization != null && authorization.size() > 1) {
			return ProblemWriter.write(exchange, ProblemType.BAD_REQUEST,
					"The request has " + authorization.size() + " Authorization headers; send one");
		}
		if (byCookieFromElsewhere(request)) {
			return ProblemWriter.write(exchange, ProblemType.FORBIDDEN,
					"A WebSocket authenticated by the " + TokenConverter.COOKIE + " cookie may be opened only by "
							+ "pages of this gateway's origin or of one listed in streamgate.cors.allowed-origins, not "
							+ request.getHeaders().getOrigin());
		}
		return chain.filter(exchange);
	}

	private boolean byCookieFromElsewhere(ServerHttpRequest request) {
		HttpHeaders headers = request.getHeaders();
		String origin = headers.getOrigin();
		if (origin == null || !TokenConverter.SOCKETS.equals(request.getPath().pathWithinApplication().value())
				|| headers.containsHeader(HttpHeaders.AUTHORIZATION)
				|| request.getQueryParams().getFirst(TokenConverter.QUERY_PARAMETER) != null
				|| request.getCookies().getFirst(TokenConverter.COOKIE) == null) {
			return false;
		}
		String lower = origin.toLowerCase(Locale.ROOT);
		return !this.allowedOrigins.contains(lower) && !sameOrigin(lower, headers.getFirst(HttpHeaders.HOST));
	}

	private static boolean sameOrigin(String origin, String host) {
		if (host == null) {
			return false;
		}
		try {
			URI uri = URI.create(origin);
			int port = (uri.getPort() >= 0) ? uri.getPort() : ("https".equals(uri.getScheme()) ? 443 : 80);
			String expected = host.toLowerCase(Locale.ROOT);
			return expected.equals(uri.getHost() + ":" + port)
					|| (uri.getPort() < 0 || port == 80 || port == 443) && expected.equals(uri.getHost());
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

}
