package dev.streamgate.core.oauth;

/**
 * No access token could be had: the token endpoint refused the credentials, answered
 * something that is not a token response, or could not be reached in time. The message
 * says which, never with the secret.
 */
public class AccessTokenException extends RuntimeException {

	private final boolean retryable;

	AccessTokenException(String message, boolean retryable, Throwable cause) {
		super(message, cause);
		this.retryable = retryable;
	}

	/**
	 * Whether asking again later may succeed by itself (the endpoint was unreachable or
	 * slow), rather than needing a changed configuration (credentials refused).
	 * @return whether the failure is transient
	 */
	public boolean isRetryable() {
		return this.retryable;
	}

}
