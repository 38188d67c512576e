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
 */
public record Event(int partition, long offset, EventType type, Instant publishedAt, byte[] data) {

}
