package dev.streamgate.security;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.security.authorization.AuthorizationDecision;
import org.springframework.security.authorization.AuthorizationResult;
import org.springframework.security.authorization.ReactiveAuthorizationManager;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.config.web.server.SecurityWebFiltersOrder;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jose.jws.SignatureAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimNames;
import org.springframework.security.oauth2.jwt.JwtClaimValidator;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatchers;
import org.springframework.security.web.server.authorization.AuthorizationContext;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.security.web.server.firewall.ServerExchangeRejectedHandler;
import org.springframework.security.web.server.firewall.ServerWebExchangeFirewall;
import org.springframework.security.web.server.firewall.StrictServerWebExchangeFirewall;
import org.springframework.security.web.server.savedrequest.NoOpServerRequestCache;
import org.springframework.web.cors.reactive.UrlBasedCorsConfigurationSource;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.web.RequestAttributes;
import dev.streamgate.core.web.SubscribeAccess;
import dev.streamgate.web.CorsProperties;

/**
 * Tokens per role and per topic: the gateway is an OAuth2 resource server that takes JWTs
 * signed with {@code streamgate.security.jwt.secret} (HS256) or verified against
 * {@code streamgate.security.jwt.jwk-set-uri}, and reads rights from their
 * {@code streamgate} claim. Secure by default: without a key it makes a random one, keeps
 * it in a file (so tokens outlive restarts) and logs an admin token.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(SecurityProperties.class)
public class SecurityConfiguration {

	private static final Log logger = LogFactory.getLog(SecurityConfiguration.class);

	private static final String[] OPEN = { "/actuator/health", "/actuator/health/**", "/actuator/prometheus",
			"/v3/api-docs", "/v3/api-docs/**", "/asyncapi", "/swagger-ui.html", "/swagger-ui/**", "/webjars/**", "/",
			"/console", "/console/**", "/favicon.ico", "/demo/**" };

	/** The methods the API answers; the firewall refuses the others. */
	private static final Set<HttpMethod> SERVED_METHODS = new LinkedHashSet<>(List.of(HttpMethod.GET, HttpMethod.HEAD,
			HttpMethod.POST, HttpMethod.PUT, HttpMethod.PATCH, HttpMethod.DELETE, HttpMethod.OPTIONS));

	/**
	 * No observation of Spring Security's filters, authentications and authorizations:
	 * with an observation registry it wraps every filter of the chain on every request.
	 * Turning the observations off by name ({@code management.observations.enable}) left
	 * the wrapping in place, allocating on every publication (fanout-200's profile);
	 * these settings leave it out. The request's own observation
	 * ({@code http.server.requests} and its span) stays.
	 */
	@Bean
	SecurityObservationSettings securityObservationSettings() {
		return SecurityObservationSettings.noObservations();
	}

	@Bean
	SubscribeAccess subscribeAccess(SecurityProperties properties, ReactiveJwtDecoder jwtDecoder) {
		return new TokenSubscribeAccess(properties.enabled(), jwtDecoder, properties.tokenExpiringNotice());
	}

	@Bean
	ReactiveJwtDecoder jwtDecoder(SecurityProperties properties, Environment environment) {
		SecurityProperties.Jwt jwt = properties.jwt();
		NimbusReactiveJwtDecoder decoder;
		if (jwt.jwkSetUri() != null) {
			// Any signature algorithm the JWKS offers keys for.
			decoder = NimbusReactiveJwtDecoder.withJwkSetUri(jwt.jwkSetUri().toString())
				.jwsAlgorithms((algorithms) -> algorithms.addAll(java.util.List.of(SignatureAlgorithm.values())))
				.build();
		}
		else {
			decoder = NimbusReactiveJwtDecoder.withSecretKey(signingKey(properties, environment))
				.macAlgorithm(MacAlgorithm.HS256)
				.build();
		}
		// API.md: tokens carry exp.
		// Spring's default skew is 60 s: a token would outlive its exp by a minute.
		decoder.setJwtValidator(
				JwtValidators.createDefaultWithValidators(List.of(new JwtTimestampValidator(jwt.clockSkew()),
						new JwtClaimValidator<>(JwtClaimNames.EXP, Objects::nonNull))));
		return decoder;
	}

	private static SecretKey signingKey(SecurityProperties properties, Environment environment) {
		String secret = properties.jwt().secret();
		if (secret != null && !secret.isEmpty()) {
			return secretKey(secret);
		}
		if (!properties.enabled()) {
			// Nothing is checked: a key that no token will ever meet, and no file.
			byte[] random = new byte[32];
			new SecureRandom().nextBytes(random);
			return new SecretKeySpec(random, "HmacSHA256");
		}
		Path file = keyFile(properties, environment).toAbsolutePath().normalize();
		SecretKey key = StoredSigningKey.loadOrCreate(file);
		Instant expires = Instant.now().plus(properties.devTokenValidity());
		logger.info("No streamgate.security.jwt.secret or jwk-set-uri: tokens are signed with the key in " + file
				+ " (made on first start; delete it and restart to rotate the key, which refuses every token issued "
				+ "before; `java -jar streamgate.jar token --help` mints scoped tokens). Admin token, valid until "
				+ expires + ":\n\n    " + TokenCommand.mint(key, "standalone-admin", Map.of("admin", true), expires)
				+ "\n");
		return key;
	}

	static SecretKey secretKey(String secret) {
		byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
		if (bytes.length < 32) {
			throw new IllegalStateException(
					"streamgate.security.jwt.secret must be at least 32 bytes (256 bits) for HS256, it has "
							+ bytes.length);
		}
		return new SecretKeySpec(bytes, "HmacSHA256");
	}

	/**
	 * The configured key file, or {@code token.key} beside the embedded broker's storage.
	 */
	static Path keyFile(SecurityProperties properties, Environment environment) {
		if (properties.jwt().keyFile() != null) {
			return properties.jwt().keyFile();
		}
		Path brokerData = Path.of(environment.getProperty("streamgate.embedded-kafka.data-dir", "data/kafka"));
		Path parent = brokerData.toAbsolutePath().normalize().getParent();
		return ((parent != null) ? parent : brokerData.toAbsolutePath()).resolve("token.key");
	}

	/** Where the Mercure hub lists its subscriptions. */
	private static final String MERCURE_SUBSCRIPTIONS_PATH = "/.well-known/mercure/subscriptions";

	/**
	 * Spring Security's firewall, its header checks made without regular expressions
	 * ({@link HeaderCharacters}). The Mercure subscriptions API alone takes encoded
	 * slashes (double ones too) and percent signs in its path, where they are part of an
	 * escaped topic selector
	 * ({@code /.well-known/mercure/subscriptions/https%3A%2F%2F...}); its own filter
	 * chain matches that prefix, which no decoding changes.
	 */
	@Bean
	ServerWebExchangeFirewall firewall() {
		StrictServerWebExchangeFirewall strict = strictFirewall();
		StrictServerWebExchangeFirewall escapedPaths = strictFirewall();
		escapedPaths.setAllowUrlEncodedSlash(true);
		escapedPaths.setAllowUrlEncodedPercent(true);
		escapedPaths.setAllowUrlEncodedDoubleSlash(true);
		return (exchange) -> exchange.getRequest().getPath().value().startsWith(MERCURE_SUBSCRIPTIONS_PATH + "/")
				? escapedPaths.getFirewalledExchange(exchange) : strict.getFirewalledExchange(exchange);
	}

	private static StrictServerWebExchangeFirewall strictFirewall() {
		StrictServerWebExchangeFirewall firewall = new StrictServerWebExchangeFirewall();
		firewall.setAllowedHeaderNames(HeaderCharacters::allowedName);
		firewall.setAllowedHeaderValues(HeaderCharacters::allowedValue);
		return firewall;
	}

	/**
	 * Requests the firewall refuses (an encoded NUL or slash in the path, say) get a
	 * problem like every other 4xx, not an empty 400.
	 */
	@Bean
	ServerExchangeRejectedHandler problemForRejectedExchanges() {
		return (exchange, ex) -> {
			HttpMethod method = exchange.getRequest().getMethod();
			if (!SERVED_METHODS.contains(method)) {
				// TRACE, CONNECT, made-up methods: the firewall's refusal is a 405.
				exchange.getResponse().getHeaders().setAllow(SERVED_METHODS);
				return ProblemWriter.write(exchange, ProblemType.METHOD_NOT_ALLOWED,
						"Method " + method.name() + " is not served; the API answers " + SERVED_METHODS);
			}
			return ProblemWriter.write(exchange, ProblemType.BAD_REQUEST,
					"The request was refused: its path or a parameter name holds characters that are not allowed");
		};
	}

	/**
	 * The Mercure hub checks its own tokens (the {@code mercure} claim, its own keys):
	 * the gateway's resource server does not read them.
	 * @param http the chain's builder
	 * @param cors the CORS configuration
	 * @param corsProperties the allowed origins
	 * @return the chain of the hub's paths
	 */
	@Bean
	@Order(Ordered.HIGHEST_PRECEDENCE)
	SecurityWebFilterChain mercureWebFilterChain(ServerHttpSecurity http, UrlBasedCorsConfigurationSource cors,
			CorsProperties corsProperties) {
		http.securityMatcher(ServerWebExchangeMatchers.pathMatchers("/.well-known/mercure", "/.well-known/mercure/**"));
		common(http, cors);
		http.addFilterBefore(new RequestChecks(corsProperties.allowedOrigins()),
				SecurityWebFiltersOrder.AUTHENTICATION);
		return http.authorizeExchange((exchanges) -> exchanges.anyExchange().permitAll()).build();
	}

	/** What every chain has: no session, no CSRF token, CORS, the gateway's headers. */
	private static void common(ServerHttpSecurity http, UrlBasedCorsConfigurationSource cors) {
		http.csrf(ServerHttpSecurity.CsrfSpec::disable)
			.httpBasic(ServerHttpSecurity.HttpBasicSpec::disable)
			.formLogin(ServerHttpSecurity.FormLoginSpec::disable)
			.logout(ServerHttpSecurity.LogoutSpec::disable)
			.anonymous(ServerHttpSecurity.AnonymousSpec::disable)
			.requestCache((cache) -> cache.requestCache(NoOpServerRequestCache.getInstance()))
			.securityContextRepository(NoOpServerSecurityContextRepository.getInstance())
			.cors((spec) -> spec.configurationSource(cors))
			// The gateway's own headers (CORS, cache control of streams) stay as they
			// are; three of the static ones come from one writer (SecurityHeaders).
			.headers((headers) -> headers.cache(ServerHttpSecurity.HeaderSpec.CacheSpec::disable)
				.contentTypeOptions(ServerHttpSecurity.HeaderSpec.ContentTypeOptionsSpec::disable)
				.frameOptions(ServerHttpSecurity.HeaderSpec.FrameOptionsSpec::disable)
				.xssProtection(ServerHttpSecurity.HeaderSpec.XssProtectionSpec::disable)
				.writer(new SecurityHeaders()));
	}

	@Bean
	SecurityWebFilterChain securityWebFilterChain(ServerHttpSecurity http, SecurityProperties properties,
			ReactiveJwtDecoder jwtDecoder, TopicStore topics, UrlBasedCorsConfigurationSource cors,
			CorsProperties corsProperties) {
		common(http, cors);
		if (!properties.enabled()) {
			logger.warn("streamgate.security.enabled=false: every endpoint is open to anyone, "
					+ "the topic and webhook APIs included");
			return http.authorizeExchange((exchanges) -> exchanges.anyExchange().permitAll()).build();
		}
		http.addFilterBefore(new RequestChecks(corsProperties.allowedOrigins()),
				SecurityWebFiltersOrder.AUTHENTICATION);
		http.oauth2ResourceServer((server) -> server.jwt((jwt) -> jwt.jwtDecoder(jwtDecoder))
			.bearerTokenConverter(new TokenConverter())
			.authenticationEntryPoint((exchange, ex) -> {
				boolean tokenGiven = ex instanceof OAuth2AuthenticationException;
				exchange.getResponse()
					.getHeaders()
					.set(HttpHeaders.WWW_AUTHENTICATE,
							tokenGiven ? "Bearer error=\"invalid_token\"" : "Bearer realm=\"streamgate\"");
				return ProblemWriter.write(exchange, ProblemType.UNAUTHORIZED,
						tokenGiven ? "The token was refused: " + ex.getMessage()
								: "A bearer token is required: the Authorization header, or on streams the "
										+ TokenConverter.QUERY_PARAMETER + " query parameter or the "
										+ TokenConverter.COOKIE + " cookie");
			})
			.accessDeniedHandler((exchange, ex) -> ProblemWriter.write(exchange, ProblemType.FORBIDDEN,
					"The token does not grant this: " + required(exchange.getRequest().getPath().value()))));
		http.authorizeExchange((exchanges) -> exchanges.pathMatchers(HttpMethod.OPTIONS)
			.permitAll()
			.pathMatchers(OPEN)
			.permitAll()
			.pathMatchers("/api/v1/topics", "/api/v1/topics/**")
			.access(granted((grants, topicId) -> grants.admin()))
			.pathMatchers("/api/v1/publish/{topicId}")
			.access(granted(Grants::canPublish))
			.pathMatchers("/api/v1/stream/{topicId}")
			.access(publicOr(topics, granted(Grants::canSubscribe)))
			// Topics are named in messages or query parameters: each is checked by
			// the channel (SubscribeAccess). A token sent is still verified here.
			.pathMatchers("/api/v1/ws", "/api/v1/stream")
			.permitAll()
			.anyExchange()
			.access(granted((grants, topicId) -> grants.admin())));
		http.addFilterAfter(tokenExpiry(), SecurityWebFiltersOrder.AUTHORIZATION);
		return http.build();
	}

	private static String required(String path) {
		if (path.startsWith("/api/v1/publish/")) {
			return "publish to this topic";
		}
		if (path.startsWith("/api/v1/stream")) {
			return "subscribe to this topic";
		}
		return "admin rights";
	}

	/** Grants checked against the token of the request and the path's topic id. */
	private static ReactiveAuthorizationManager<AuthorizationContext> granted(
			java.util.function.BiPredicate<Grants, String> check) {
		return (authentication, context) -> authentication.filter(Authentication::isAuthenticated)
			.<AuthorizationResult>map((auth) -> new AuthorizationDecision(
					check.test(grants(auth), (String) context.getVariables().get("topicId"))))
			.defaultIfEmpty(new AuthorizationDecision(false));
	}

	/** Public topics can be streamed without a token. */
	private static ReactiveAuthorizationManager<AuthorizationContext> publicOr(TopicStore topics,
			ReactiveAuthorizationManager<AuthorizationContext> otherwise) {
		return (authentication, context) -> {
			String topicId = (String) context.getVariables().get("topicId");
			boolean isPublic = topics.get(topicId)
				.map(StoredTopic::topic)
				.map((topic) -> topic.isPublic())
				.orElse(false);
			return isPublic ? Mono.just(new AuthorizationDecision(true)) : otherwise.authorize(authentication, context);
		};
	}

	private static Grants grants(Authentication authentication) {
		if (authentication instanceof JwtAuthenticationToken token) {
			return Grants.from(token.getToken().getClaims().get("streamgate"));
		}
		return Grants.NONE;
	}

	/** Tells the stream when its token expires, so that it ends then. */
	private static WebFilter tokenExpiry() {
		return (exchange, chain) -> exchange.getPrincipal()
			.filter(JwtAuthenticationToken.class::isInstance)
			.map((principal) -> ((JwtAuthenticationToken) principal).getToken())
			.map(Jwt::getExpiresAt)
			.doOnNext((expiresAt) -> exchange.getAttributes().put(RequestAttributes.TOKEN_EXPIRES_AT, expiresAt))
			.then(chain.filter(exchange));
	}

}
