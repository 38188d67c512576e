package dev.streamgate.core.topic;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.regex.Pattern;

import dev.streamgate.core.problem.StreamgateException.FieldError;

/**
 * Checks a complete topic against the rules of the HTTP contract.
 */
public final class TopicValidator {

	/** The pattern every topic id matches. */
	public static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");

	static final Duration MIN_RETENTION = Duration.ofMinutes(1);

	static final Duration MAX_RETENTION = Duration.ofDays(3650);

	static final int MAX_PARTITIONS = 128;

	static final int MAX_NAME_LENGTH = 200;

	static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

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
		topic.publisher().validate(errors);
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

	static void checkRange(Duration value, Duration min, Duration max, String pointer, List<FieldError> errors) {
		if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
			errors.add(new FieldError(pointer, "must be between " + min + " and " + max + ", was " + value));
		}
	}

	static String escape(String token) {
		return token.replace("~", "~0").replace("/", "~1");
	}

}
