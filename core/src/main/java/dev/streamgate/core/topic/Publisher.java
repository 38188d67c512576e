package dev.streamgate.core.topic;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.swagger.v3.oas.annotations.media.Schema;

import dev.streamgate.core.egress.EgressUrls;
import dev.streamgate.core.oauth.ClientCredentials;
import dev.streamgate.core.problem.StreamgateException.FieldError;

/**
 * A topic's publisher, one type per kind, each with its own fields, defaults and rules:
 * {@link HttpPost} takes nothing, {@link HttpPoller} watches a URL, {@link Kafka} mirrors
 * the records of a Kafka topic. In JSON the kind is the {@code type} field.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({ @JsonSubTypes.Type(value = Publisher.HttpPoller.class, name = "http-poller"),
		@JsonSubTypes.Type(value = Publisher.HttpPost.class, name = "http-post"),
		@JsonSubTypes.Type(value = Publisher.Kafka.class, name = "kafka") })
@Schema(description = "Where a topic's publications come from: type, and the fields of that type")
public sealed interface Publisher {

	/** The publisher of topics that say nothing else. */
	HttpPost HTTP_POST = new HttpPost();

	/**
	 * The kind of publisher.
	 * @return its type
	 */
	@JsonIgnore
	PublisherType type();

	/**
	 * This publisher with its defaults filled in.
	 * @return the complete publisher
	 */
	Publisher withDefaults();

	/**
	 * Adds the rule violations of this publisher, whose defaults are filled in.
	 * @param errors where violations are added, pointing under {@code /publisher}
	 */
	void validate(List<FieldError> errors);

	/**
	 * Publications come in over {@code POST /api/v1/publish/{id}}; no fields.
	 */
	@Schema(name = "HttpPostPublisher", description = "type http-post: publications are POSTed; no other field")
	record HttpPost() implements Publisher {

		@Override
		public PublisherType type() {
			return PublisherType.HTTP_POST;
		}

		@Override
		public Publisher withDefaults() {
			return this;
		}

		@Override
		public void validate(List<FieldError> errors) {
		}

	}

	/**
	 * A source URL polled, page by page when it is paginated, with a bearer token when it
	 * needs one.
	 *
	 * @param url the polled URL
	 * @param pollingPeriod time between polls
	 * @param headers request headers sent with each poll
	 * @param payloadPointer RFC 6901 pointer to the part of the response that is the
	 * document
	 * @param timeout per-poll timeout
	 * @param retry what to retry and how
	 * @param pagination how to follow a paginated source, {@code null} for one request
	 * @param oauth2 client credentials for a bearer token, {@code null} for none
	 */
	@JsonInclude(JsonInclude.Include.NON_NULL)
	@Schema(name = "HttpPollerPublisher", description = "type http-poller: a REST source polled for changes")
	record HttpPoller(@Schema(description = "the polled URL", example = "https://api.example.com/prices") URI url,
			@Schema(type = "string", format = "duration", description = "PT0.5S to PT1H, default PT1S",
					example = "PT1S") Duration pollingPeriod,
			@Schema(description = "request headers") Map<String, String> headers,
			@Schema(description = "RFC 6901 pointer to the document in the response",
					example = "/data") String payloadPointer,
			@Schema(type = "string", format = "duration", description = "per poll, default PT10S",
					example = "PT10S") Duration timeout,
			Retry retry, Pagination pagination,
			@Schema(description = "OAuth 2.0 client credentials for the source") ClientCredentials oauth2)
			implements
				Publisher {

		static final Duration MIN_POLLING_PERIOD = Duration.ofMillis(500);

		static final Duration MAX_POLLING_PERIOD = Duration.ofHours(1);

		static final Duration MAX_TIMEOUT = Duration.ofMinutes(5);

		static final Duration MAX_BACKOFF = Duration.ofHours(1);

		/**
		 * A poller of a URL with every other field at its default.
		 * @param url the polled URL
		 * @param pollingPeriod time between polls
		 * @return the poller, defaults not yet filled in
		 */
		public static HttpPoller of(URI url, Duration pollingPeriod) {
			return new HttpPoller(url, pollingPeriod, null, null, null, null, null, null);
		}

		@Override
		public PublisherType type() {
			return PublisherType.HTTP_POLLER;
		}

		@Override
		public HttpPoller withDefaults() {
			return new HttpPoller(this.url, (this.pollingPeriod != null) ? this.pollingPeriod : Duration.ofSeconds(1),
					(this.headers != null) ? this.headers : Map.of(),
					(this.payloadPointer != null) ? this.payloadPointer : "",
					(this.timeout != null) ? this.timeout : Duration.ofSeconds(10),
					(this.retry != null) ? this.retry.withDefaults() : Retry.DEFAULT,
					(this.pagination != null) ? this.pagination.withDefaults() : null,
					(this.oauth2 != null) ? this.oauth2.withDefaults() : null);
		}

		@Override
		public void validate(List<FieldError> errors) {
			if (this.url == null) {
				errors.add(new FieldError("/publisher/url", "is required for an http-poller publisher"));
			}
			else {
				EgressUrls.check(this.url, "/publisher/url", errors);
			}
			TopicValidator.checkRange(this.pollingPeriod, MIN_POLLING_PERIOD, MAX_POLLING_PERIOD,
					"/publisher/pollingPeriod", errors);
			TopicValidator.checkRange(this.timeout, Duration.ofMillis(1), MAX_TIMEOUT, "/publisher/timeout", errors);
			if (!TopicValidator.POINTER.matcher(this.payloadPointer).matches()) {
				errors.add(new FieldError("/publisher/payloadPointer",
						"must be an RFC 6901 JSON pointer such as /data or the empty string"));
			}
			for (Map.Entry<String, String> header : this.headers.entrySet()) {
				if (!TopicValidator.HEADER_NAME.matcher(header.getKey()).matches() || header.getValue() == null
						|| header.getValue().chars().anyMatch((c) -> c == '\r' || c == '\n' || c == 0)) {
					errors.add(new FieldError("/publisher/headers/" + TopicValidator.escape(header.getKey()),
							"must be a valid HTTP header name with a single-line value"));
				}
			}
			this.retry.validate(errors);
			if (this.pagination != null) {
				this.pagination.validate(errors);
			}
			if (this.oauth2 != null) {
				this.oauth2.validate("/publisher/oauth2", errors);
			}
		}

	}

	/**
	 * The records of a Kafka topic, mirrored into the streamgate topic.
	 *
	 * @param bootstrapServers the source cluster, {@code null} for the gateway's own
	 * @param topic the source topic
	 * @param security how to connect, {@code null} for PLAINTEXT
	 * @param startFrom where a new mirror starts reading the source
	 */
	@JsonInclude(JsonInclude.Include.NON_NULL)
	@Schema(name = "KafkaPublisher", description = "type kafka: the records of a Kafka topic, mirrored")
	record Kafka(
			@Schema(description = "host:port,host:port of the source cluster; absent: the gateway's own cluster",
					example = "kafka-1.example.com:9093") String bootstrapServers,
			@Schema(description = "the source topic, which must exist", example = "orders") String topic,
			@Schema(description = "how to connect to the source cluster") KafkaEndpoint.Security security,
			@Schema(description = "where a new mirror starts reading: the records published from then on "
					+ "(latest, the default) or every retained record (earliest)") StartFrom startFrom)
			implements
				Publisher {

		/**
		 * The source.
		 * @return the source topic and how to reach it
		 */
		public KafkaEndpoint endpoint() {
			return new KafkaEndpoint(this.bootstrapServers, this.topic, this.security);
		}

		@Override
		public PublisherType type() {
			return PublisherType.KAFKA;
		}

		@Override
		public Kafka withDefaults() {
			return new Kafka(this.bootstrapServers, this.topic, this.security,
					(this.startFrom != null) ? this.startFrom : StartFrom.LATEST);
		}

		@Override
		public void validate(List<FieldError> errors) {
			endpoint().validate("/publisher", errors);
		}

	}

	/** Where a new mirror starts reading its source. */
	enum StartFrom {

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
	record Retry(List<Integer> onStatus, @Schema(minimum = "1", maximum = "10") Integer maxAttempts,
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

		void validate(List<FieldError> errors) {
			for (Integer status : this.onStatus) {
				if (status == null || status < 400 || status > 599) {
					errors.add(new FieldError("/publisher/retry/onStatus", "statuses must be between 400 and 599"));
					break;
				}
			}
			if (this.maxAttempts < 1 || this.maxAttempts > 10) {
				errors.add(new FieldError("/publisher/retry/maxAttempts", "must be between 1 and 10"));
			}
			TopicValidator.checkRange(this.initialBackoff, Duration.ofMillis(1), HttpPoller.MAX_BACKOFF,
					"/publisher/retry/initialBackoff", errors);
			TopicValidator.checkRange(this.maxBackoff, Duration.ofMillis(1), HttpPoller.MAX_BACKOFF,
					"/publisher/retry/maxBackoff", errors);
			if (this.maxBackoff.compareTo(this.initialBackoff) < 0) {
				errors.add(new FieldError("/publisher/retry/maxBackoff", "must not be shorter than initialBackoff"));
			}
		}

	}

}
