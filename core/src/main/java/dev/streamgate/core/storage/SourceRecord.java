package dev.streamgate.core.storage;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One record of a kafka publisher's source.
 *
 * @param partition its partition
 * @param offset its offset
 * @param key its key as UTF-8 text, {@code null} for none
 * @param headers its headers in order, values as UTF-8 text ({@code null} for none)
 * @param timestamp its timestamp
 * @param value its value, {@code null} for a tombstone
 */
public record SourceRecord(int partition, long offset, String key, List<Map.Entry<String, String>> headers,
		Instant timestamp, byte[] value) {

}
