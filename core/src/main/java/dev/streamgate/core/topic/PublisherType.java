package dev.streamgate.core.topic;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Where a topic's publications come from.
 */
public enum PublisherType {

	@JsonProperty("http-poller")
	HTTP_POLLER("http-poller"),

	@JsonProperty("http-post")
	HTTP_POST("http-post"),

	@JsonProperty("kafka")
	KAFKA("kafka");

	private final String value;

	PublisherType(String value) {
		this.value = value;
	}

	@Override
	public String toString() {
		return this.value;
	}

}
