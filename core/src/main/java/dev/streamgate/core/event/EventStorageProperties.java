package dev.streamgate.core.event;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.zip.CRC32;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The shared event log: the Kafka topic {@code <prefix>events} whose partitions carry the
 * events of every topic in shared storage, keyed by topic id.
 *
 * @param sharedPartitions its partitions; a topic's partition is the hash of its id
 * modulo this, so it cannot change once topics are stored there (start-up refuses a
 * shared log with another count)
 * @param sharedRetention how long it keeps events: the longest retention a shared topic
 * may have (a topic asking for more is dedicated)
 */
@Validated
@ConfigurationProperties("streamgate.events")
public record EventStorageProperties(@DefaultValue("12") @Min(1) @Max(1024) int sharedPartitions,
		@DefaultValue("7d") Duration sharedRetention) {

	/**
	 * The partition of the shared log a new topic goes to: NGINX's {@code hash} of its id
	 * (Cache::Memcached's, {@code ((crc32(id) >> 16) & 0x7fff)}) modulo the partitions.
	 * NGINX sends a request whose key is the topic id to the server of index
	 * {@code hash mod n}; with {@code n} servers and a partition count that {@code n}
	 * divides, server {@code k} therefore gets every topic of the partitions
	 * {@code p mod n = k} and no other, and reads only those.
	 * @param topicId the topic id
	 * @return its partition
	 */
	public int sharedPartitionOf(String topicId) {
		CRC32 crc = new CRC32();
		crc.update(topicId.getBytes(StandardCharsets.UTF_8));
		return (int) ((crc.getValue() >>> 16) & 0x7fff) % this.sharedPartitions;
	}

}
