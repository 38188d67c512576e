package dev.streamgate.core.topic;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How a subscriber receives a topic.
 */
public enum SubscriptionMode {

	@JsonProperty("snapshot-patch")
	SNAPSHOT_PATCH("snapshot-patch"),

	@JsonProperty("snapshot-only")
	SNAPSHOT_ONLY("snapshot-only"),

	@JsonProperty("event")
	EVENT("event");

	private final String value;

	SubscriptionMode(String value) {
		this.value = value;
	}

	public String value() {
		return this.value;
	}

	/**
	 * The mode named {@code value} as it is written in the contract, if any.
	 * @param value a mode name such as {@code snapshot-patch}
	 * @return the mode, or {@code null} when no mode has that name
	 */
	public static SubscriptionMode fromValue(String value) {
		for (SubscriptionMode mode : values()) {
			if (mode.value.equals(value)) {
				return mode;
			}
		}
		return null;
	}

	@Override
	public String toString() {
		return this.value;
	}

}
