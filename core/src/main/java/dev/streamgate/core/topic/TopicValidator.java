package dev.streamgate.core.topic;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import dev.streamgate.core.egress.EgressUrls;
import dev.streamgate.core.problem.StreamgateException.FieldError;

/**
 * Checks a complete topic against the rules of the HTTP contract.
 */
public final class TopicValidator {

	/** The pattern every topic id matches. */
	public static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");

	static final Duration MIN_POLLING_PERIOD = Duration.ofMillis(500);

	static final Duration MAX_POLLING_PERIOD = Duration.ofHours(1);

	static final Duration MAX_TIMEOUT = Duration.ofMinutes(5);

	static final Duration MIN_RETENTION = Duration.ofMinutes(1);

	static final Duration MAX_RETENTION = Duration.ofDays(3650);

	static final Duration MAX_BACKOFF = Duration.ofHours(1);

	static final int MAX_PARTITIONS = 128;

	static final int MAX_NAME_LENGTH = 200;

	private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

	static final Pattern POINTER = Pattern.compile("(/([^~/]|~[01])*)*");

	private TopicValidator() {
	}

	/**
	 * Whether a string is a valid topic id.
	 * @param id a candidate id
	 * @return true when it matches {@link #ID}
	 */
	public static boolean isValidId(String id) {
		return id != null && ID.matcher(id).matches();
	}

	/**
	 * The rule violations of a topic whose defaults are filled in.
	 * @param topic the topic
	 * @return the violations, empty when the topic is valid
	 */
	public static List<FieldError> validate(Topic topic) {
		List<FieldError> errors = new ArrayList<>();
		if (topic.schema() != null && !topic.schema().isNull()) {
			errors.addAll(PayloadSchemas.check(topic.schema()));
		}
		if (!isValidId(topic.id())) {
			errors.add(new FieldError("/id", "must match " + ID.pattern()));
		}
		if (topic.name().isBlank() || topic.name().length() > MAX_NAME_LENGTH) {
			errors.add(new FieldError("/name", "must have 1 to " + MAX_NAME_LENGTH + " characters"));
		}
		validatePublisher(topic.publisher(), errors);
		validateModes(topic, errors);
		if (topic.partitions() < 1 || topic.partitions() > MAX_PARTITIONS) {
			errors.add(new FieldError("/partitions", "must be between 1 and " + MAX_PARTITIONS));
		}
		else if (topic.partitions() > 1 && topic.payloadType() == PayloadType.SNAPSHOT) {
			errors.add(new FieldError("/partitions",
					"must be 1 for a snapshot topic: patches only make sense in one total order"));
		}
		checkRange(topic.retention(), MIN_RETENTION, MAX_RETENTION, "/retention", errors);
		return errors;
	}

	private static void validatePublisher(Publisher publisher, List<FieldError> errors) {
		if (publisher.type() == null) {
			errors.add(new FieldError("/publisher/type", "is required: http-poller, http-post or kafka"));
			return;
		}
		if (publisher.type() == PublisherType.KAFKA) {
			if (publisher.url() != null || publisher.pollingPeriod() != null || publisher.headers() != null
					|| publisher.payloadPointer() != null || publisher.timeout() != null || publisher.retry() != null
					|| publisher.pagination() != null || publisher.oauth2() != null) {
				errors.add(new FieldError("/publisher",
						"a kafka publisher takes type, bootstrapServers, topic, security and startFrom"));
			}
			publisher.kafka().validate("/publisher", errors);
			return;
		}
		if (publisher.bootstrapServers() != null || publisher.topic() != null || publisher.security() != null
				|| publisher.startFrom() != null) {
			errors.add(new FieldError("/publisher",
					"bootstrapServers, topic, security and startFrom are for kafka publishers"));
		}
		if (publisher.type() == PublisherType.HTTP_POST) {
			if (!publisher.equals(Publisher.HTTP_POST)) {
				errors.add(new FieldError("/publisher", "an http-post publisher takes no fields but type"));
			}
			return;
		}
		validateUrl(publisher.url(), errors);
		checkRange(publisher.pollingPeriod(), MIN_POLLING_PERIOD, MAX_POLLING_PERIOD, "/publisher/pollingPeriod",
				errors);
		checkRange(publisher.timeout(), Duration.ofMillis(1), MAX_TIMEOUT, "/publisher/timeout", errors);
		if (!POINTER.matcher(publisher.payloadPointer()).matches()) {
			errors.add(new FieldError("/publisher/payloadPointer",
					"must be an RFC 6901 JSON pointer such as /data or the empty string"));
		}
		for (Map.Entry<String, String> header : publisher.headers().entrySet()) {
			if (!HEADER_NAME.matcher(header.getKey()).matches() || header.getValue() == null
					|| header.getValue().chars().anyMatch((c) -> c == '\r' || c == '\n' || c == 0)) {
				errors.add(new FieldError("/publisher/headers/" + escape(header.getKey()),
						"must be a valid HTTP header name with a single-line value"));
			}
		}
		validateRetry(publisher.retry(), errors);
		if (publisher.pagination() != null) {
			publisher.pagination().validate(errors);
		}
		if (publisher.oauth2() != null) {
			publisher.oauth2().validate("/publisher/oauth2", errors);
		}
	}

	private static void validateUrl(URI url, List<FieldError> errors) {
		if (url == null) {
			errors.add(new FieldError("/publisher/url", "is required for an http-poller publisher"));
		}
		else {
			EgressUrls.check(url, "/publisher/url", errors);
		}
	}

	private static void validateRetry(Publisher.Retry retry, List<FieldError> errors) {
		for (Integer status : retry.onStatus()) {
			if (status == null || status < 400 || status > 599) {
				errors.add(new FieldError("/publisher/retry/onStatus", "statuses must be between 400 and 599"));
				break;
			}
		}
		if (retry.maxAttempts() < 1 || retry.maxAttempts() > 10) {
			errors.add(new FieldError("/publisher/retry/maxAttempts", "must be between 1 and 10"));
		}
		checkRange(retry.initialBackoff(), Duration.ofMillis(1), MAX_BACKOFF, "/publisher/retry/initialBackoff",
				errors);
		checkRange(retry.maxBackoff(), Duration.ofMillis(1), MAX_BACKOFF, "/publisher/retry/maxBackoff", errors);
		if (retry.maxBackoff().compareTo(retry.initialBackoff()) < 0) {
			errors.add(new FieldError("/publisher/retry/maxBackoff", "must not be shorter than initialBackoff"));
		}
	}

	private static void validateModes(Topic topic, List<FieldError> errors) {
		List<SubscriptionMode> valid = topic.payloadType().modes();
		if (topic.subscriptionModes().isEmpty()) {
			errors.add(new FieldError("/subscriptionModes", "must name at least one mode"));
		}
		if (new HashSet<>(topic.subscriptionModes()).size() != topic.subscriptionModes().size()) {
			errors.add(new FieldError("/subscriptionModes", "must not repeat a mode"));
		}
		for (SubscriptionMode mode : topic.subscriptionModes()) {
			if (mode == null || !valid.contains(mode)) {
				errors.add(new FieldError("/subscriptionModes",
						"a " + topic.payloadType() + " topic allows only " + valid + ", not " + mode));
			}
		}
		SubscriptionMode defaultMode = topic.defaultSubscriptionMode();
		if (defaultMode != null && !topic.subscriptionModes().contains(defaultMode)) {
			errors.add(new FieldError("/defaultSubscriptionMode", "must be one of subscriptionModes"));
		}
	}

	private static void checkRange(Duration value, Duration min, Duration max, String pointer,
			List<FieldError> errors) {
		if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
			errors.add(new FieldError(pointer, "must be between " + min + " and " + max + ", was " + value));
		}
	}

	private static String escape(String token) {
		return token.replace("~", "~0").replace("/", "~1");
	}

}
