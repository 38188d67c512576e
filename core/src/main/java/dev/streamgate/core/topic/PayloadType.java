package dev.streamgate.core.topic;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What one publication of a topic is: the whole document, or one event.
 */
public enum PayloadType {

	@JsonProperty("snapshot")
	SNAPSHOT(List.of(SubscriptionMode.SNAPSHOT_PATCH, SubscriptionMode.SNAPSHOT_ONLY)),

	@JsonProperty("event")
	EVENT(List.of(SubscriptionMode.EVENT));

	private final List<SubscriptionMode> modes;

	PayloadType(List<SubscriptionMode> modes) {
		this.modes = modes;
	}

	/**
	 * The subscription modes valid for this payload type, the default first.
	 * @return the modes
	 */
	public List<SubscriptionMode> modes() {
		return this.modes;
	}

	@Override
	public String toString() {
		return name().toLowerCase();
	}

}
