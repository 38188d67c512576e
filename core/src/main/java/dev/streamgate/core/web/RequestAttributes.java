package dev.streamgate.core.web;

/**
 * Exchange attributes that the security layer sets for the roles, which do not depend on
 * Spring Security.
 */
public final class RequestAttributes {

	/**
	 * The {@link java.time.Instant} at which the request's token expires; absent for
	 * anonymous requests and when security is off. A stream ends then.
	 */
	public static final String TOKEN_EXPIRES_AT = "streamgate.token.expires-at";

	private RequestAttributes() {
	}

}
