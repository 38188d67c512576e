package dev.streamgate.core.web;

import java.security.Principal;
import java.time.Instant;

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
