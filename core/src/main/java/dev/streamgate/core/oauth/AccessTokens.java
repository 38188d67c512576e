package dev.streamgate.core.oauth;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.netty.channel.ChannelOption;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.security.oauth2.client.endpoint.OAuth2ClientCredentialsGrantRequest;
import org.springframework.security.oauth2.client.endpoint.WebClientReactiveClientCredentialsTokenResponseClient;
import org.springframework.security.oauth2.client.registration.ClientRegistration;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.core.OAuth2AccessToken;
import org.springframework.security.oauth2.core.OAuth2AuthorizationException;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.endpoint.OAuth2AccessTokenResponse;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

import dev.streamgate.core.egress.EgressGuard;
import dev.streamgate.core.egress.EgressRefusedException;

/**
 * Access tokens of the client credentials grant, for pollers and webhooks. The token
 * request, its client authentication and the parsing of answers and errors are Spring
 * Security's OAuth2 client
 * ({@link WebClientReactiveClientCredentialsTokenResponseClient}) over a WebClient whose
 * connections pass the egress guard: a token URL is as much a user-given address as a
 * source's. A token is kept until shortly before it expires (a fifth of its lifetime, at
 * most 30 s), callers asking meanwhile share one request, and a token a server rejected
 * with 401 is dropped by {@link #reject} so that the next caller fetches a new one.
 */
public class AccessTokens {

	private static final Duration MAX_MARGIN = Duration.ofSeconds(30);

	private static final String AUDIENCE = "audience";

	private final WebClientReactiveClientCredentialsTokenResponseClient client;

	private final Duration timeout;

	private final Clock clock;

	/** Credentials no poller or webhook asked for in an hour are forgotten. */
	private final Cache<ClientCredentials, Entry> tokens = Caffeine.newBuilder()
		.expireAfterAccess(Duration.ofHours(1))
		.build();

	private final AtomicLong registrations = new AtomicLong();

	/**
	 * Creates the token source.
	 * @param guard the egress guard every token request passes
	 * @param timeout how long a token request may take, connection included
	 * @param clock the clock that says when a token expires
	 */
	public AccessTokens(EgressGuard guard, Duration timeout, Clock clock) {
		this.timeout = timeout;
		this.clock = clock;
		HttpClient http = guard.guard(HttpClient
			.create(ConnectionProvider.builder("streamgate-oauth2")
				.maxConnections(50)
				.maxIdleTime(Duration.ofSeconds(30))
				.build())
			.option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(timeout.toMillis(), Integer.MAX_VALUE))
			.responseTimeout(timeout)
			.followRedirect(false));
		this.client = new WebClientReactiveClientCredentialsTokenResponseClient();
		this.client.setWebClient(WebClient.builder().clientConnector(new ReactorClientHttpConnector(http)).build());
		this.client.addParametersConverter(AccessTokens::audience);
	}

	/**
	 * A valid access token for the credentials, from the cache when one is.
	 * @param credentials the credentials
	 * @return the token's value, or {@link AccessTokenException}
	 */
	public Mono<String> token(ClientCredentials credentials) {
		Entry entry = this.tokens.get(credentials, this::entry);
		return entry.token.map(OAuth2AccessToken::getTokenValue);
	}

	/**
	 * Drops a token a server answered 401 to, if it is still the cached one: the next
	 * {@link #token} fetches a new one.
	 * @param credentials the credentials
	 * @param token the rejected token's value
	 */
	public void reject(ClientCredentials credentials, String token) {
		this.tokens.asMap()
			.computeIfPresent(credentials, (key, entry) -> token.equals(entry.last) ? entry(key) : entry);
	}

	private Entry entry(ClientCredentials credentials) {
		ClientRegistration registration = registration(credentials.withDefaults());
		Entry entry = new Entry();
		entry.token = Mono
			.defer(() -> this.client.getTokenResponse(new OAuth2ClientCredentialsGrantRequest(registration)))
			.map(OAuth2AccessTokenResponse::getAccessToken)
			.timeout(this.timeout.plusMillis(500))
			.onErrorMap((ex) -> !(ex instanceof AccessTokenException), AccessTokens::describe)
			.doOnNext((token) -> entry.last = token.getTokenValue())
			.cache(this::keep, (ex) -> Duration.ZERO, () -> Duration.ZERO);
		return entry;
	}

	private ClientRegistration registration(ClientCredentials credentials) {
		ClientRegistration.Builder builder = ClientRegistration
			.withRegistrationId("streamgate-" + this.registrations.incrementAndGet())
			.authorizationGrantType(AuthorizationGrantType.CLIENT_CREDENTIALS)
			.tokenUri(credentials.tokenUrl().toString())
			.clientId(credentials.clientId())
			.clientSecret(credentials.clientSecret())
			.clientAuthenticationMethod((credentials.authentication() == ClientCredentials.Authentication.POST)
					? ClientAuthenticationMethod.CLIENT_SECRET_POST : ClientAuthenticationMethod.CLIENT_SECRET_BASIC);
		if (credentials.scope() != null) {
			builder.scope(credentials.scope().trim().split("\\s+"));
		}
		if (credentials.audience() != null) {
			builder.providerConfigurationMetadata(Map.of(AUDIENCE, credentials.audience()));
		}
		return builder.build();
	}

	/** The {@code audience} parameter, for the servers that want one. */
	private static MultiValueMap<String, String> audience(OAuth2ClientCredentialsGrantRequest request) {
		Object audience = request.getClientRegistration().getProviderDetails().getConfigurationMetadata().get(AUDIENCE);
		MultiValueMap<String, String> parameters = new LinkedMultiValueMap<>();
		if (audience != null) {
			parameters.add(AUDIENCE, audience.toString());
		}
		return parameters;
	}

	/** How long a token is kept: until a fifth of its lifetime (at most 30 s) is left. */
	private Duration keep(OAuth2AccessToken token) {
		Instant expires = token.getExpiresAt();
		if (expires == null) {
			return Duration.ZERO;
		}
		Instant issued = (token.getIssuedAt() != null) ? token.getIssuedAt() : this.clock.instant();
		Duration lifetime = Duration.between(issued, expires);
		Duration margin = lifetime.dividedBy(5);
		if (margin.compareTo(MAX_MARGIN) > 0) {
			margin = MAX_MARGIN;
		}
		Duration left = Duration.between(this.clock.instant(), expires.minus(margin));
		return left.isNegative() ? Duration.ZERO : left;
	}

	private static AccessTokenException describe(Throwable ex) {
		if (ex instanceof OAuth2AuthorizationException authorization) {
			OAuth2Error error = authorization.getError();
			String detail = error.getErrorCode()
					+ ((error.getDescription() != null) ? " (" + error.getDescription() + ")" : "");
			return new AccessTokenException("The token endpoint refused the client credentials: " + detail, null);
		}
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof EgressRefusedException) {
				return new AccessTokenException("The token endpoint's address is not allowed: " + cause.getMessage(),
						null);
			}
			if (cause instanceof TimeoutException || cause instanceof io.netty.handler.timeout.ReadTimeoutException
					|| cause instanceof io.netty.channel.ConnectTimeoutException) {
				return new AccessTokenException("The token endpoint did not answer in time", null);
			}
			if (cause instanceof UnknownHostException) {
				return new AccessTokenException("The token endpoint's host is unknown: " + cause.getMessage(), null);
			}
			if (cause instanceof ConnectException) {
				return new AccessTokenException("The token endpoint could not be reached: " + cause.getMessage(), null);
			}
		}
		return new AccessTokenException("No access token: " + ex.getMessage(), ex);
	}

	/** A cached token request, and the value it last gave. */
	private static final class Entry {

		private Mono<OAuth2AccessToken> token;

		private volatile String last;

	}

}
