package dev.streamgate.storage.kafka;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import jakarta.validation.constraints.Min;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.lang.Nullable;
import org.springframework.validation.annotation.Validated;

/**
 * How the Kafka topics streamgate creates are replicated ({@code streamgate.kafka.*}):
 * each of them, configuration topics, the shared event log and dedicated topics alike.
 * Unset, the brokers' defaults apply ({@code default.replication.factor},
 * {@code min.insync.replicas}). A write streamgate acknowledges (acks=all) survives the
 * loss of a broker only with a factor of 3 and at least 2 in-sync replicas.
 *
 * @param replicationFactor replicas of each partition; unset: the brokers' default
 * @param minInsyncReplicas replicas that must have a write before it is acknowledged;
 * unset: the brokers' default
 */
@Validated
@ConfigurationProperties("streamgate.kafka")
public record KafkaReplicationProperties(@Nullable @Min(1) Short replicationFactor,
		@Nullable @Min(1) Integer minInsyncReplicas) {

	/** The brokers' defaults. */
	public static final KafkaReplicationProperties BROKER_DEFAULTS = new KafkaReplicationProperties(null, null);

	/**
	 * A topic to create, replicated as configured.
	 * @param name its name
	 * @param partitions its partitions
	 * @param configs its other configs
	 * @return the topic
	 */
	NewTopic newTopic(String name, int partitions, Map<String, String> configs) {
		Map<String, String> all = new HashMap<>(configs);
		if (this.minInsyncReplicas != null) {
			all.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(this.minInsyncReplicas));
		}
		return new NewTopic(name, Optional.of(partitions), Optional.ofNullable(this.replicationFactor)).configs(all);
	}

}
