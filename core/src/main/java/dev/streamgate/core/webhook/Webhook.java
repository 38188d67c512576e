package dev.streamgate.core.webhook;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import dev.streamgate.core.filter.Selection;
import dev.streamgate.core.oauth.ClientCredentials;
import dev.streamgate.core.patch.DocumentView;
import dev.streamgate.core.topic.KafkaEndpoint;
import dev.streamgate.core.topic.SubscriptionMode;

/**
 * A webhook: where a topic's events are POSTed, and how far delivery has gone in the
 * current epoch.
 *
 * @param id the webhook id
 * @param topicId the topic whose events it receives
 * @param url where they are POSTed
 * @param mode the subscription mode of the deliveries
 * @param headers headers sent with every delivery
 * @param secret the {@code whsec_} signing secret
 * @param description free text
 * @param status active or disabled
 * @param disabledReason why it was disabled, when it was
 * @param epoch raised by each replay: cursors committed in an older epoch no longer count
 * @param start the cursor this epoch's deliveries start after
 * @param startWithSnapshot whether the epoch starts with the document at {@code start}
 * (snapshot modes)
 * @param createdAt when it was registered
 * @param updatedAt when it last changed
 * @param oauth2 client credentials for a bearer token to the endpoint, {@code null} for
 * none
 * @param kafka the Kafka topic deliveries go into instead of {@code url} (which is then
 * {@code null})
 * @param types the event types delivered (names, {@code *} for any characters), or
 * {@code null} for all
 * @param filter a CEL expression an event must satisfy to be delivered, or {@code null}
 * @param pointer the part of a snapshot topic's document delivered (a JSON pointer), or
 * {@code null} for the whole document
 * @param cloudEvents {@code structured} or {@code binary} to deliver CloudEvents, or
 * {@code null} for streamgate's envelope
 */
public record Webhook(String id, String topicId, String url, SubscriptionMode mode, Map<String, String> headers,
		String secret, String description, Status status, String disabledReason, long epoch, String start,
		boolean startWithSnapshot, Instant createdAt, Instant updatedAt, ClientCredentials oauth2, KafkaEndpoint kafka,
		List<String> types, String filter, String pointer, String cloudEvents) {

	/** CloudEvents in the structured mode: the body is the event, data included. */
	public static final String STRUCTURED = "structured";

	/** CloudEvents in the binary mode: ce-* headers, the body is the data. */
	public static final String BINARY = "binary";

	/**
	 * The events delivered.
	 * @return the webhook's types and filter
	 */
	public Selection selection() {
		return Selection.of(this.types, this.filter, "/types", "/filter")
			.withView((this.pointer != null) ? DocumentView.of(this.pointer, "/pointer") : null);
	}

	public boolean isActive() {
		return this.status == Status.ACTIVE;
	}

	/**
	 * This webhook with another status.
	 * @param newStatus the status
	 * @param reason why, for a disabled webhook
	 * @param now the time of the change
	 * @return the changed webhook
	 */
	public Webhook withStatus(Status newStatus, String reason, Instant now) {
		return new Webhook(this.id, this.topicId, this.url, this.mode, this.headers, this.secret, this.description,
				newStatus, (newStatus == Status.DISABLED) ? reason : null, this.epoch, this.start,
				this.startWithSnapshot, this.createdAt, now, this.oauth2, this.kafka, this.types, this.filter,
				this.pointer, this.cloudEvents);
	}

	/**
	 * This webhook restarted from a cursor, in a new epoch.
	 * @param cursor the cursor to deliver after
	 * @param now the time of the change
	 * @return the changed webhook
	 */
	public Webhook replayedFrom(String cursor, Instant now) {
		return new Webhook(this.id, this.topicId, this.url, this.mode, this.headers, this.secret, this.description,
				this.status, this.disabledReason, this.epoch + 1, cursor, this.mode != SubscriptionMode.EVENT,
				this.createdAt, now, this.oauth2, this.kafka, this.types, this.filter, this.pointer, this.cloudEvents);
	}

	/**
	 * Whether a webhook is delivering.
	 */
	public enum Status {

		@JsonProperty("active")
		ACTIVE,

		@JsonProperty("disabled")
		DISABLED;

		public String value() {
			return name().toLowerCase(java.util.Locale.ROOT);
		}

	}

}
