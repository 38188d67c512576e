package dev.streamgate.core.topic;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Where a topic's events live in Kafka.
 */
public enum Storage {

	/**
	 * In a fixed set of Kafka partitions shared by many topics, keyed by topic id: a
	 * topic costs no Kafka topic, no partition and no file; one partition per topic,
	 * retention at most the shared log's.
	 */
	@JsonProperty("shared")
	SHARED,

	/**
	 * In a Kafka topic of its own, with its own partitions and retention.
	 */
	@JsonProperty("dedicated")
	DEDICATED;

	@Override
	public String toString() {
		return name().toLowerCase();
	}

}
