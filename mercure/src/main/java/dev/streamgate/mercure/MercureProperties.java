package dev.streamgate.mercure;

import java.time.Duration;
import java.util.List;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * The Mercure hub ({@code streamgate.mercure.*}).
 *
 * @param publisherKey the HS256 key of publishers' tokens; alone, it serves subscribers'
 * too
 * @param subscriberKey the HS256 key of subscribers' tokens; alone, it serves publishers'
 * too
 * @param jwksUri a JWK Set whose keys verify the tokens of the roles without an HS256 key
 * @param anonymous whether subscribers without a token receive public updates
 * @param topic the streamgate topic that keeps the hub's updates
 * @param retention how long updates are kept, and so how far back a subscriber resumes
 * @param retentionBytes how many bytes of updates are kept at most
 * @param resumeScan how many of the newest updates a resume looks through for an id the
 * publisher chose (ids the hub made point at their update)
 * @param maxSelectors the most {@code topic} selectors one subscription has
 * @param maxUpdate the largest publication
 * @param publishOrigins the origins (besides the hub's own) of pages that may publish
 * with the cookie
 * @param cookieName the cookie browsers send the token in ({@code mercureAuthorization};
 * another name where several hubs share a domain)
 * @param discovery whether the gateway's responses carry a {@code Link} to the hub
 * @param hubUrl the hub's URL in that link
 * @param subscriptions whether subscriptions are published as they open and close, and
 * listed by the subscriptions API
 */
@ConfigurationProperties("streamgate.mercure")
@Validated
public record MercureProperties(String publisherKey, String subscriberKey, String jwksUri,
		@DefaultValue("false") boolean anonymous, @DefaultValue("mercure") String topic,
		@DefaultValue("P1D") Duration retention, @DefaultValue("1GB") DataSize retentionBytes,
		@DefaultValue("10000") @Min(0) int resumeScan, @DefaultValue("100") @Min(1) @Max(10000) int maxSelectors,
		@DefaultValue("1MB") DataSize maxUpdate, @DefaultValue List<String> publishOrigins,
		@DefaultValue("mercureAuthorization") String cookieName, @DefaultValue("false") boolean discovery,
		@DefaultValue("/.well-known/mercure") String hubUrl, @DefaultValue("false") boolean subscriptions) {

	/** The longest selector. */
	static final int MAX_SELECTOR_LENGTH = 2048;

}
