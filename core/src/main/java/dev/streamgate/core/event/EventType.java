package dev.streamgate.core.event;

/**
 * What one record of a topic's events is.
 */
public enum EventType {

	/** A whole document (snapshot topics). */
	SNAPSHOT("snapshot"),

	/** An RFC 6902 patch from the previous document (snapshot topics). */
	PATCH("patch"),

	/** One published event (event topics). */
	EVENT("event"),

	/**
	 * A problem JSON: the publisher failed, a position expired, the topic was deleted.
	 * Not {@code error} on the wire: EventSource fires its own {@code error} event for
	 * lost connections, and one listener must not receive both.
	 */
	PROBLEM("problem");

	/** The wire name of {@link #PROBLEM} in records written before it was renamed. */
	private static final String LEGACY_PROBLEM = "error";

	private final String value;

	EventType(String value) {
		this.value = value;
	}

	/**
	 * The name used on the wire: the SSE {@code event:} field and the record header.
	 * @return the name
	 */
	public String value() {
		return this.value;
	}

	/**
	 * The type with this wire name.
	 * @param value the name
	 * @return the type
	 * @throws IllegalArgumentException for an unknown name
	 */
	public static EventType fromValue(String value) {
		for (EventType type : values()) {
			if (type.value.equals(value)) {
				return type;
			}
		}
		if (LEGACY_PROBLEM.equals(value)) {
			return PROBLEM;
		}
		throw new IllegalArgumentException("Unknown event type " + value);
	}

}
