package dev.streamgate.support;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * The token endpoint of an OAuth 2.0 authorization server for one client, as RFC 6749
 * section 4.4 describes it (client_secret_basic, form parameters, error answers), whose
 * tokens expire after a given lifetime; and the check a resource server makes of a bearer
 * token. Mounted on a test's own Reactor Netty server.
 */
public final class AuthorizationServer {

	private final String clientId;

	private final String clientSecret;

	private final Duration lifetime;

	/** Token value to its expiry, epoch milliseconds. */
	private final Map<String, Long> tokens = new ConcurrentHashMap<>();

	private final AtomicInteger issued = new AtomicInteger();

	private final List<Map<String, String>> requests = new CopyOnWriteArrayList<>();

	public AuthorizationServer(String clientId, String clientSecret, Duration lifetime) {
		this.clientId = clientId;
		this.clientSecret = clientSecret;
		this.lifetime = lifetime;
	}

	/**
	 * Handles {@code POST} of the token endpoint.
	 * @param request the request
	 * @param response the response
	 * @return completes when answered
	 */
	public Mono<Void> token(HttpServerRequest request, HttpServerResponse response) {
		String basic = request.requestHeaders().get("Authorization");
		return request.receive().aggregate().asString(StandardCharsets.UTF_8).defaultIfEmpty("").flatMap((body) -> {
			Map<String, String> form = form(body);
			this.requests.add(form);
			String expected = "Basic " + Base64.getEncoder()
				.encodeToString((this.clientId + ":" + this.clientSecret).getBytes(StandardCharsets.UTF_8));
			if (!expected.equals(basic)) {
				return json(response.status(401).header("WWW-Authenticate", "Basic"),
						"{\"error\":\"invalid_client\",\"error_description\":\"Client authentication failed\"}");
			}
			if (!"client_credentials".equals(form.get("grant_type"))) {
				return json(response.status(400), "{\"error\":\"unsupported_grant_type\"}");
			}
			String token = "t-" + this.issued.incrementAndGet();
			this.tokens.put(token, System.currentTimeMillis() + this.lifetime.toMillis());
			return json(response.header("Cache-Control", "no-store"), "{\"access_token\":\"" + token
					+ "\",\"token_type\":\"Bearer\",\"expires_in\":" + this.lifetime.toSeconds() + "}");
		});
	}

	/**
	 * Whether a request carries a bearer token this server issued and that has not
	 * expired.
	 * @param request the request
	 * @return whether it is authorized
	 */
	public boolean authorized(HttpServerRequest request) {
		String header = request.requestHeaders().get("Authorization");
		if (header == null || !header.startsWith("Bearer ")) {
			return false;
		}
		Long expires = this.tokens.get(header.substring(7));
		return expires != null && expires > System.currentTimeMillis();
	}

	/** Forgets every token, as a server whose signing key rotated. */
	public void revokeTokens() {
		this.tokens.clear();
	}

	public int tokensIssued() {
		return this.issued.get();
	}

	/**
	 * The form parameters of every token request.
	 * @return the requests, oldest first
	 */
	public List<Map<String, String>> requests() {
		return this.requests;
	}

	public static Mono<Void> json(HttpServerResponse response, String body) {
		return response.header("Content-Type", "application/json").sendString(Mono.just(body)).then();
	}

	/**
	 * Decodes {@code application/x-www-form-urlencoded} text, a query string too.
	 * @param encoded the text
	 * @return the parameters
	 */
	public static Map<String, String> form(String encoded) {
		Map<String, String> form = new ConcurrentHashMap<>();
		for (String pair : encoded.split("&")) {
			if (!pair.isEmpty()) {
				String[] nameValue = pair.split("=", 2);
				form.put(URLDecoder.decode(nameValue[0], StandardCharsets.UTF_8),
						URLDecoder.decode((nameValue.length > 1) ? nameValue[1] : "", StandardCharsets.UTF_8));
			}
		}
		return form;
	}

}
