package dev.streamgate.core.oauth;

/**
 * No access token could be had: the token endpoint refused the credentials, answered
 * something that is not a token response, or could not be reached in time. The message
 * says which, never with the secret.
 */
public class AccessTokenException extends RuntimeException {

	AccessTokenException(String message, Throwable cause) {
		super(message, cause);
	}

}
