package dev.streamgate.security;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Who may do what.
 *
 * @param enabled false turns every check off (warned at every start)
 * @param jwt how tokens are verified
 * @param devTokenValidity how long the admin token logged at start-up (when no key is
 * configured) stays valid
 * @param tokenExpiringNotice how long before a connection's token expires the connection
 * (an SSE stream, a WebSocket) is sent a {@code token-expiring} notice; half the token's
 * remaining life when that is shorter
 */
@ConfigurationProperties("streamgate.security")
public record SecurityProperties(@DefaultValue("true") boolean enabled, @DefaultValue Jwt jwt,
		@DefaultValue("24h") Duration devTokenValidity, @DefaultValue("30s") Duration tokenExpiringNotice) {

	/**
	 * Token verification: an HMAC secret (HS256) or a JWKS. Neither = a random key kept
	 * in {@code keyFile} (made on first start) and a logged admin token.
	 *
	 * @param secret the HMAC key, at least 32 bytes
	 * @param jwkSetUri the JWKS to verify tokens against
	 * @param keyFile where the generated key is kept when neither is set; unset = beside
	 * the embedded broker's storage ({@code token.key} in the parent of
	 * {@code streamgate.embedded-kafka.data-dir}, {@code ./data/token.key} by default)
	 * @param clockSkew how long after its {@code exp} (and before its {@code nbf}) a
	 * token is still accepted, for clocks that differ a little
	 */
	public record Jwt(String secret, URI jwkSetUri, Path keyFile, @DefaultValue("5s") Duration clockSkew) {
	}

}
