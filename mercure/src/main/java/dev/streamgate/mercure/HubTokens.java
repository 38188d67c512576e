package dev.streamgate.mercure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import javax.crypto.spec.SecretKeySpec;

import org.springframework.http.HttpCookie;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import reactor.core.publisher.Mono;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;

/**
 * Mercure's JWS tokens: where a request carries one (the {@code Authorization} header,
 * else the {@code authorization} query parameter, else the {@code mercureAuthorization}
 * cookie), and what its {@code mercure} claim grants. Publishers' and subscribers' tokens
 * are verified with keys of their own: an HS256 key, or the keys of a JWK Set.
 */
final class HubTokens {

	/** The query parameter of clients that can set neither a header nor a cookie. */
	static final String QUERY = "authorization";

	/**
	 * Tokens verified lately, each kept at most this long (and never past its expiry).
	 */
	static final Duration REMEMBERED = Duration.ofSeconds(60);

	private static final int REMEMBERED_MAX = 10_000;

	private final ReactiveJwtDecoder publishers;

	private final ReactiveJwtDecoder subscribers;

	private final String cookie;

	/**
	 * The claims of tokens verified lately, by role and token: a publisher sends the same
	 * token with every publication, and verifying it each time cost more than the rest of
	 * the request. Bounded in count and age, so that a key taken out of a JWK Set stops
	 * working within {@link #REMEMBERED}.
	 */
	private final Map<String, Remembered> remembered = new ConcurrentHashMap<>();

	HubTokens(ReactiveJwtDecoder publishers, ReactiveJwtDecoder subscribers, String cookie) {
		this.publishers = publishers;
		this.subscribers = subscribers;
		this.cookie = cookie;
	}

	/**
	 * The name of the cookie browsers send the token in.
	 * @return the name
	 */
	String cookie() {
		return this.cookie;
	}

	/**
	 * The decoders the configuration names: a key for one role serves both when the other
	 * has none, and so does the JWK Set.
	 * @param properties the hub's configuration
	 * @return the tokens
	 */
	static HubTokens of(MercureProperties properties) {
		ReactiveJwtDecoder jwks = (properties.jwksUri() != null)
				? NimbusReactiveJwtDecoder.withJwkSetUri(properties.jwksUri()).build() : null;
		String publisherKey = (properties.publisherKey() != null) ? properties.publisherKey()
				: properties.subscriberKey();
		String subscriberKey = (properties.subscriberKey() != null) ? properties.subscriberKey()
				: properties.publisherKey();
		return new HubTokens((publisherKey != null) ? hs256(publisherKey) : jwks,
				(subscriberKey != null) ? hs256(subscriberKey) : jwks, properties.cookieName());
	}

	private static ReactiveJwtDecoder hs256(String key) {
		byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
		if (bytes.length < 32) {
			throw new IllegalArgumentException("A Mercure HS256 key has 32 bytes at least (RFC 7518 section 3.2); "
					+ "this one has " + bytes.length);
		}
		return NimbusReactiveJwtDecoder.withSecretKey(new SecretKeySpec(bytes, "HmacSHA256"))
			.macAlgorithm(MacAlgorithm.HS256)
			.build();
	}

	/**
	 * The token a request presents, and how.
	 * @param request the request
	 * @return the token, or {@code null} for none
	 */
	Presented presented(ServerHttpRequest request) {
		String header = request.getHeaders().getFirst(HttpHeaders.AUTHORIZATION);
		if (header != null) {
			if (!header.regionMatches(true, 0, "Bearer ", 0, 7) || header.substring(7).isBlank()) {
				throw invalid("The Authorization header is 'Bearer ' and a token");
			}
			return new Presented(header.substring(7).trim(), false);
		}
		String query = request.getQueryParams().getFirst(QUERY);
		if (query != null && !query.isBlank()) {
			return new Presented(query.trim(), false);
		}
		HttpCookie cookie = request.getCookies().getFirst(this.cookie);
		if (cookie != null && !cookie.getValue().isBlank()) {
			return new Presented(cookie.getValue().trim(), true);
		}
		return null;
	}

	/**
	 * The rights of a publisher's token.
	 * @param token the token
	 * @return its claims, or a 401 error when it is refused
	 */
	Mono<Claims> publisher(String token) {
		return rememberedOr("p", token, () -> decode(this.publishers, token, "publishers"));
	}

	/**
	 * The rights of a subscriber's token.
	 * @param token the token
	 * @return its claims, or a 401 error when it is refused
	 */
	Mono<Claims> subscriber(String token) {
		return rememberedOr("s", token, () -> decode(this.subscribers, token, "subscribers"));
	}

	private Mono<Claims> rememberedOr(String role, String token, Supplier<Mono<Claims>> decode) {
		String key = role + token;
		Instant now = Instant.now();
		Remembered known = this.remembered.get(key);
		if (known != null && now.isBefore(known.until())) {
			return Mono.just(known.claims());
		}
		return decode.get().doOnNext((claims) -> {
			Instant until = now.plus(REMEMBERED);
			if (claims.expiresAt() != null && claims.expiresAt().isBefore(until)) {
				until = claims.expiresAt();
			}
			if (this.remembered.size() >= REMEMBERED_MAX) {
				this.remembered.clear();
			}
			this.remembered.put(key, new Remembered(claims, until));
		});
	}

	private static Mono<Claims> decode(ReactiveJwtDecoder decoder, String token, String role) {
		if (decoder == null) {
			return Mono.error(invalid("This hub has no key for the tokens of " + role
					+ " (streamgate.mercure.publisher-key, subscriber-key or jwks-uri)"));
		}
		return decoder.decode(token)
			.onErrorMap(JwtException.class, (ex) -> invalid("The token was refused: " + ex.getMessage()))
			.map(HubTokens::claims);
	}

	static Claims claims(Jwt jwt) {
		Object claim = jwt.getClaims().get("mercure");
		Map<?, ?> mercure = (claim instanceof Map<?, ?> map) ? map : Map.of();
		return new Claims(selectors(mercure.get("publish")), selectors(mercure.get("subscribe")),
				mercure.get("payload"), jwt.getExpiresAt(), jwt.getSubject());
	}

	/** The selectors of a claim's array; {@code null} when it has none. */
	private static List<TopicSelector> selectors(Object value) {
		if (!(value instanceof List<?> list)) {
			return null;
		}
		List<TopicSelector> selectors = new ArrayList<>(list.size());
		for (Object item : list) {
			if (item instanceof String selector) {
				selectors.add(TopicSelector.of(selector));
			}
		}
		return selectors;
	}

	/**
	 * A 401 for a token the hub refused (RFC 6750's {@code invalid_token}).
	 * @param detail why
	 * @return the error
	 */
	static StreamgateException invalid(String detail) {
		StreamgateException error = new StreamgateException(ProblemType.UNAUTHORIZED, detail);
		error.getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "Bearer error=\"invalid_token\"");
		return error;
	}

	/**
	 * A 401 for a request without a token where one is needed.
	 * @param detail what to send
	 * @return the error
	 */
	static StreamgateException required(String detail) {
		return new StreamgateException(ProblemType.UNAUTHORIZED, detail);
	}

	private record Remembered(Claims claims, Instant until) {
	}

	/**
	 * A token and how the request carried it.
	 *
	 * @param token the compact JWS
	 * @param fromCookie whether it came in the cookie (a publication with one must come
	 * from an allowed origin)
	 */
	record Presented(String token, boolean fromCookie) {
	}

	/**
	 * What a token grants.
	 *
	 * @param publish the selectors of the topics it may publish to; {@code null} for none
	 * @param subscribe the selectors of the private updates it may receive; {@code null}
	 * for none
	 * @param payload the {@code payload} of the claim, or {@code null}
	 * @param expiresAt when the token expires, or {@code null}
	 * @param subject its {@code sub}, or {@code null}
	 */
	record Claims(List<TopicSelector> publish, List<TopicSelector> subscribe, Object payload, Instant expiresAt,
			String subject) {

		/** An anonymous subscriber's. */
		static final Claims ANONYMOUS = new Claims(null, null, null, null, null);

	}

}
