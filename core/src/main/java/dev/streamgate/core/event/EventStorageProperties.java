package dev.streamgate.core.event;

import java.time.Duration;

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

}
