package dev.streamgate.core.event;

import java.time.Instant;

/**
 * One record of a topic's events, as read back from the log.
 *
 * @param partition the partition
 * @param offset the offset within the partition
 * @param type what the record is
 * @param publishedAt when it was published
 * @param data the UTF-8 JSON payload
 * @param attributes the publisher's type, key and headers
 */
public record Event(int partition, long offset, EventType type, Instant publishedAt, byte[] data,
		EventAttributes attributes) {

	/**
	 * An event without attributes.
	 * @param partition the partition
	 * @param offset the offset within the partition
	 * @param type what the record is
	 * @param publishedAt when it was published
	 * @param data the UTF-8 JSON payload
	 */
	public Event(int partition, long offset, EventType type, Instant publishedAt, byte[] data) {
		this(partition, offset, type, publishedAt, data, EventAttributes.NONE);
	}

}
