package dev.streamgate.security;

import java.security.Principal;
import java.time.Instant;

import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.web.SubscribeAccess;

/**
 * The subscribe grants of a token's {@code streamgate} claim, checked per topic: public
 * topics need no token, the others a token whose grants match the topic id. With security
 * off everything is allowed.
 */
final class TokenSubscribeAccess implements SubscribeAccess {

	private final boolean enabled;

	TokenSubscribeAccess(boolean enabled) {
		this.enabled = enabled;
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

}
