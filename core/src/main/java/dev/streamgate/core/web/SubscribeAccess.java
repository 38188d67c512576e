package dev.streamgate.core.web;

import java.security.Principal;
import java.time.Duration;
import java.time.Instant;

import reactor.core.publisher.Mono;

import dev.streamgate.core.topic.Topic;

/**
 * Whose token may subscribe to which topic, for channels that name their topics after the
 * request was authenticated (a WebSocket's subscribe messages, a stream of several
 * topics). The security layer implements it; the roles do not depend on Spring Security.
 */
public interface SubscribeAccess {

	/**
	 * Checks one topic for a connection's principal.
	 * @param principal the authenticated principal, or {@code null} when no token was
	 * sent
	 * @param topic the topic
	 * @return the verdict
	 */
	Verdict check(Principal principal, Topic topic);

	/**
	 * When a principal's token expires; a connection ends then.
	 * @param principal the principal, or {@code null}
	 * @return the expiry, or {@code null} when there is none
	 */
	Instant expiresAt(Principal principal);

	/**
	 * How long before its token expires a connection is sent a {@code token-expiring}
	 * notice, so that its client fetches a fresh token in time.
	 * @return the notice period
	 */
	Duration expiringNotice();

	/**
	 * Verifies a token sent on an open connection (a WebSocket's {@code refresh}).
	 * @param token the token
	 * @return its principal; empty when nothing is checked (security off); an error
	 * ({@link dev.streamgate.core.problem.StreamgateException}, 401) for a token refused
	 */
	Mono<Principal> authenticate(String token);

	/**
	 * How long from now a connection whose token expires at {@code expiresAt} waits
	 * before its {@code token-expiring} notice: the notice period before the expiry, or
	 * half of the time left when that is shorter, so that a token shorter-lived than the
	 * period is not refreshed the moment it arrives.
	 * @param expiresAt the token's expiry
	 * @param notice the notice period
	 * @param now the time now
	 * @return the wait, never negative
	 */
	static Duration untilNotice(Instant expiresAt, Duration notice, Instant now) {
		Duration left = Duration.between(now, expiresAt);
		if (left.isNegative()) {
			return Duration.ZERO;
		}
		Duration half = left.dividedBy(2);
		return left.minus((notice.compareTo(half) < 0) ? notice : half);
	}

	/** The outcome of a check. */
	enum Verdict {

		/** The topic may be subscribed to. */
		ALLOWED,

		/** A token is needed (401). */
		UNAUTHENTICATED,

		/** The token does not grant the topic (403). */
		FORBIDDEN

	}

}
