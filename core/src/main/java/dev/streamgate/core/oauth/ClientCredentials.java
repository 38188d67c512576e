package dev.streamgate.core.oauth;

import java.net.URI;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;

import dev.streamgate.core.egress.EgressUrls;
import dev.streamgate.core.problem.StreamgateException.FieldError;

/**
 * OAuth 2.0 client credentials (RFC 6749 section 4.4) with which streamgate fetches an
 * access token and sends it as {@code Authorization: Bearer} to a poller's source or a
 * webhook's endpoint. The secret is write-only: responses mask it.
 *
 * @param tokenUrl the authorization server's token endpoint
 * @param clientId the client id
 * @param clientSecret the client secret
 * @param scope the scopes asked for, separated by spaces
 * @param audience the {@code audience} parameter some servers require (Auth0, Okta)
 * @param authentication how the client authenticates to the token endpoint
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Schema(description = "OAuth 2.0 client credentials: a token is fetched from tokenUrl, cached until shortly "
		+ "before it expires, fetched again once after a 401, and sent as Authorization: Bearer")
public record ClientCredentials(
		@Schema(requiredMode = Schema.RequiredMode.REQUIRED,
				example = "https://auth.example.com/oauth/token") URI tokenUrl,
		@Schema(requiredMode = Schema.RequiredMode.REQUIRED) String clientId,
		@Schema(requiredMode = Schema.RequiredMode.REQUIRED, accessMode = Schema.AccessMode.WRITE_ONLY,
				description = "write-only: read back as ******") String clientSecret,
		@Schema(example = "prices:read") String scope, String audience,
		@Schema(description = "client_secret_basic (default) or client_secret_post") Authentication authentication) {

	static final int MAX_LENGTH = 4096;

	/**
	 * These credentials with the defaults filled in.
	 * @return the credentials
	 */
	public ClientCredentials withDefaults() {
		return (this.authentication != null) ? this : new ClientCredentials(this.tokenUrl, this.clientId,
				this.clientSecret, this.scope, this.audience, Authentication.BASIC);
	}

	/**
	 * These credentials with another secret, the stored one when a client sent back the
	 * mask it read.
	 * @param secret the secret
	 * @return the credentials
	 */
	public ClientCredentials withSecret(String secret) {
		return new ClientCredentials(this.tokenUrl, this.clientId, secret, this.scope, this.audience,
				this.authentication);
	}

	/**
	 * Adds the rule violations of these credentials.
	 * @param at the JSON pointer of the credentials in the request
	 * @param errors where violations are added
	 */
	public void validate(String at, List<FieldError> errors) {
		if (this.tokenUrl == null) {
			errors.add(new FieldError(at + "/tokenUrl", "is required"));
		}
		else {
			EgressUrls.check(this.tokenUrl, at + "/tokenUrl", errors);
		}
		checkText(this.clientId, at + "/clientId", true, errors);
		checkText(this.clientSecret, at + "/clientSecret", true, errors);
		checkText(this.scope, at + "/scope", false, errors);
		checkText(this.audience, at + "/audience", false, errors);
	}

	private static void checkText(String value, String pointer, boolean required, List<FieldError> errors) {
		if (value == null) {
			if (required) {
				errors.add(new FieldError(pointer, "is required"));
			}
		}
		else if (value.isBlank() || value.length() > MAX_LENGTH
				|| value.chars().anyMatch((c) -> c < 0x20 || c == 0x7f)) {
			errors
				.add(new FieldError(pointer, "must be 1 to " + MAX_LENGTH + " characters without control characters"));
		}
	}

	@Override
	public String toString() {
		// Never the secret, whatever logs a topic or a webhook.
		return "ClientCredentials[tokenUrl=" + this.tokenUrl + ", clientId=" + this.clientId + "]";
	}

	/**
	 * How the client authenticates to the token endpoint.
	 */
	public enum Authentication {

		/** HTTP Basic with the id and secret (RFC 6749 section 2.3.1, the default). */
		@JsonProperty("client_secret_basic")
		BASIC,

		/** The id and secret as form parameters of the token request. */
		@JsonProperty("client_secret_post")
		POST

	}

}
