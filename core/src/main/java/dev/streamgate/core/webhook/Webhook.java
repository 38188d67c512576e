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
 * @param target where deliveries go: an HTTP endpoint or a Kafka topic
 * @param mode the subscription mode of the deliveries
 * @param headers headers sent with every delivery (HTTP headers, or Kafka record headers)
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
 * @param types the event types delivered (names, {@code *} for any characters), or
 * {@code null} for all
 * @param filter a CEL expression an event must satisfy to be delivered, or {@code null}
 * @param pointer the part of a snapshot topic's document delivered (a JSON pointer), or
 * {@code null} for the whole document
 * @param cloudEvents {@code structured} or {@code binary} to deliver CloudEvents, or
 * {@code null} for streamgate's envelope
 */
public record Webhook(String id, String topicId, Target target, SubscriptionMode mode, Map<String, String> headers,
		String secret, String description, Status status, String disabledReason, long epoch, String start,
		boolean startWithSnapshot, Instant createdAt, Instant updatedAt, List<String> types, String filter,
		String pointer, String cloudEvents) {

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
		return new Webhook(this.id, this.topicId, this.target, this.mode, this.headers, this.secret, this.description,
				newStatus, (newStatus == Status.DISABLED) ? reason : null, this.epoch, this.start,
				this.startWithSnapshot, this.createdAt, now, this.types, this.filter, this.pointer, this.cloudEvents);
	}

	/**
	 * This webhook restarted from a cursor, in a new epoch.
	 * @param cursor the cursor to deliver after
	 * @param now the time of the change
	 * @return the changed webhook
	 */
	public Webhook replayedFrom(String cursor, Instant now) {
		return new Webhook(this.id, this.topicId, this.target, this.mode, this.headers, this.secret, this.description,
				this.status, this.disabledReason, this.epoch + 1, cursor, this.mode != SubscriptionMode.EVENT,
				this.createdAt, now, this.types, this.filter, this.pointer, this.cloudEvents);
	}

	/**
	 * Where a webhook's deliveries go.
	 */
	public sealed interface Target {

	}

	/**
	 * Deliveries POSTed to a URL, signed with the webhook's secret.
	 *
	 * @param url the endpoint
	 * @param oauth2 client credentials for a bearer token to the endpoint, {@code null}
	 * for none
	 */
	public record HttpTarget(String url, ClientCredentials oauth2) implements Target {

	}

	/**
	 * Deliveries written as records into a Kafka topic.
	 *
	 * @param endpoint the topic and how to reach its cluster
	 */
	public record KafkaTarget(KafkaEndpoint endpoint) implements Target {

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
