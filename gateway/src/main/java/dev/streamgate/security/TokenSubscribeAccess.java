package dev.streamgate.security;

import java.security.Principal;
import java.time.Duration;
import java.time.Instant;

import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import reactor.core.publisher.Mono;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.web.SubscribeAccess;

/**
 * The subscribe grants of a token's {@code streamgate} claim, checked per topic: public
 * topics need no token, the others a token whose grants match the topic id. With security
 * off everything is allowed.
 */
final class TokenSubscribeAccess implements SubscribeAccess {

	private final boolean enabled;

	private final ReactiveJwtDecoder decoder;

	private final Duration expiringNotice;

	TokenSubscribeAccess(boolean enabled, ReactiveJwtDecoder decoder, Duration expiringNotice) {
		this.enabled = enabled;
		this.decoder = decoder;
		this.expiringNotice = expiringNotice;
	}

	@Override
	public Verdict check(Principal principal, Topic topic) {
		if (!this.enabled || topic.isPublic()) {
			return Verdict.ALLOWED;
		}
		if (!(principal instanceof JwtAuthenticationToken token)) {
			return Verdict.UNAUTHENTICATED;
		}
		Grants grants = Grants.from(token.getToken().getClaims().get("streamgate"));
		return grants.canSubscribe(topic.id()) ? Verdict.ALLOWED : Verdict.FORBIDDEN;
	}

	@Override
	public Instant expiresAt(Principal principal) {
		return (principal instanceof JwtAuthenticationToken token) ? token.getToken().getExpiresAt() : null;
	}

	@Override
	public Duration expiringNotice() {
		return this.expiringNotice;
	}

	@Override
	public Mono<Principal> authenticate(String token) {
		if (!this.enabled) {
			return Mono.empty();
		}
		if (token == null || token.isBlank()) {
			return Mono.error(new StreamgateException(ProblemType.UNAUTHORIZED, "The token is empty"));
		}
		return this.decoder.decode(token.strip())
			.<Principal>map(JwtAuthenticationToken::new)
			.onErrorMap(JwtException.class, (ex) -> new StreamgateException(ProblemType.UNAUTHORIZED,
					"The token was refused: " + ex.getMessage()));
	}

}
