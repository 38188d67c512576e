package dev.streamgate.core.topic;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;

import dev.streamgate.core.oauth.ClientCredentials;

/**
 * A topic's publisher: {@code http-post} takes no fields, {@code http-poller} watches a
 * URL, page by page when it is paginated, with a bearer token when it needs one,
 * {@code kafka} mirrors the records of a Kafka topic.
 *
 * @param type the publisher type
 * @param url the polled URL
 * @param pollingPeriod time between polls
 * @param headers request headers sent with each poll
 * @param payloadPointer RFC 6901 pointer to the part of the response that is the document
 * @param timeout per-poll timeout
 * @param retry what to retry and how
 * @param pagination how to follow a paginated source, {@code null} for one request
 * @param oauth2 client credentials for a bearer token, {@code null} for none
 * @param bootstrapServers kafka: the source cluster, {@code null} for the gateway's own
 * @param topic kafka: the source topic
 * @param security kafka: how to connect, {@code null} for PLAINTEXT
 * @param startFrom kafka: where a new mirror starts reading the source
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Publisher(@Schema(requiredMode = Schema.RequiredMode.REQUIRED) PublisherType type,
		@Schema(description = "http-poller: the polled URL", example = "https://api.example.com/prices") URI url,
		@Schema(type = "string", format = "duration", description = "http-poller: PT0.5S to PT1H, default PT1S",
				example = "PT1S") Duration pollingPeriod,
		@Schema(description = "http-poller: request headers") Map<String, String> headers,
		@Schema(description = "http-poller: RFC 6901 pointer to the document in the response",
				example = "/data") String payloadPointer,
		@Schema(type = "string", format = "duration", description = "http-poller: per poll, default PT10S",
				example = "PT10S") Duration timeout,
		Retry retry, Pagination pagination,
		@Schema(description = "http-poller: OAuth 2.0 client credentials for the source") ClientCredentials oauth2,
		@Schema(description = "kafka: host:port,host:port of the source cluster; absent: the gateway's own cluster",
				example = "kafka-1.example.com:9093") String bootstrapServers,
		@Schema(description = "kafka: the source topic, which must exist", example = "orders") String topic,
		@Schema(description = "kafka: how to connect to the source cluster") KafkaEndpoint.Security security,
		@Schema(description = "kafka: where a new mirror starts reading: the records published from then on "
				+ "(latest, the default) or every retained record (earliest)") StartFrom startFrom) {

	/** The publisher of topics that say nothing else. */
	public static final Publisher HTTP_POST = new Publisher(PublisherType.HTTP_POST, null, null, null, null, null, null,
			null, null, null, null, null, null);

	/**
	 * A kafka publisher's source.
	 * @return the source topic and how to reach it, {@code null} for other publishers
	 */
	public KafkaEndpoint kafka() {
		return (this.type == PublisherType.KAFKA) ? new KafkaEndpoint(this.bootstrapServers, this.topic, this.security)
				: null;
	}

	/**
	 * This publisher with another source password, the stored one when a client sent back
	 * the mask it read.
	 * @param password the password
	 * @return the publisher
	 */
	public Publisher withKafkaPassword(String password) {
		KafkaEndpoint.Security changed = this.kafka().withPassword(password).security();
		return new Publisher(this.type, this.url, this.pollingPeriod, this.headers, this.payloadPointer, this.timeout,
				this.retry, this.pagination, this.oauth2, this.bootstrapServers, this.topic, changed, this.startFrom);
	}

	/** Where a new mirror starts reading its source. */
	public enum StartFrom {

		@JsonProperty("latest")
		LATEST,

		@JsonProperty("earliest")
		EARLIEST

	}

	/**
	 * The poller's retry policy.
	 *
	 * @param onStatus response statuses that are retried
	 * @param maxAttempts attempts per poll, the first included
	 * @param initialBackoff delay before the first retry
	 * @param maxBackoff longest delay between retries
	 */
	public record Retry(List<Integer> onStatus, @Schema(minimum = "1", maximum = "10") Integer maxAttempts,
			@Schema(type = "string", format = "duration", example = "PT1S") Duration initialBackoff,
			@Schema(type = "string", format = "duration", example = "PT10S") Duration maxBackoff) {

		static final Retry DEFAULT = new Retry(List.of(500, 502, 503, 504), 3, Duration.ofSeconds(1),
				Duration.ofSeconds(10));

		Retry withDefaults() {
			return new Retry((this.onStatus != null) ? this.onStatus : DEFAULT.onStatus,
					(this.maxAttempts != null) ? this.maxAttempts : DEFAULT.maxAttempts,
					(this.initialBackoff != null) ? this.initialBackoff : DEFAULT.initialBackoff,
					(this.maxBackoff != null) ? this.maxBackoff : DEFAULT.maxBackoff);
		}

	}

	Publisher withDefaults() {
		if (this.type == PublisherType.KAFKA) {
			return new Publisher(this.type, this.url, this.pollingPeriod, this.headers, this.payloadPointer,
					this.timeout, this.retry, this.pagination, this.oauth2, this.bootstrapServers, this.topic,
					this.security, (this.startFrom != null) ? this.startFrom : StartFrom.LATEST);
		}
		if (this.type != PublisherType.HTTP_POLLER) {
			return this;
		}
		return new Publisher(this.type, this.url,
				(this.pollingPeriod != null) ? this.pollingPeriod : Duration.ofSeconds(1),
				(this.headers != null) ? this.headers : Map.of(),
				(this.payloadPointer != null) ? this.payloadPointer : "",
				(this.timeout != null) ? this.timeout : Duration.ofSeconds(10),
				(this.retry != null) ? this.retry.withDefaults() : Retry.DEFAULT,
				(this.pagination != null) ? this.pagination.withDefaults() : null,
				(this.oauth2 != null) ? this.oauth2.withDefaults() : null, this.bootstrapServers, this.topic,
				this.security, this.startFrom);
	}

}
