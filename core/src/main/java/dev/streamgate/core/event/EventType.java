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

	/** A problem JSON: the publisher failed. */
	ERROR("error");

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
		throw new IllegalArgumentException("Unknown event type " + value);
	}

}
