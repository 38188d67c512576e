package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Whether Kafka answers, probed in the background so that a health check never waits on
 * it; on a node that publishes (role ingest), also whether Kafka can take its writes:
 * every partition of the shared event log has a leader and at least
 * {@code min.insync.replicas} in-sync replicas. With two of three brokers down the
 * cluster still answers, but an acknowledged write (acks=all) is refused: the node is not
 * ready then, and a load balancer sends publishers to a node that is.
 */
public final class KafkaHealthIndicator implements ReactiveHealthIndicator, AutoCloseable {

	private static final Duration PERIOD = Duration.ofSeconds(2);

	private static final int TIMEOUT_MS = 1500;

	private final AtomicReference<Health> health = new AtomicReference<>(
			Health.unknown().withDetail("reason", "not probed yet").build());

	private final Disposable probe;

	/**
	 * Probes Kafka every two seconds.
	 * @param admin the admin client
	 * @param bootstrapServers the brokers, for the details
	 * @param written the topic whose partitions must take writes, or {@code null} when
	 * this node does not publish
	 */
	KafkaHealthIndicator(Admin admin, String bootstrapServers, String written) {
		this.probe = Flux.interval(Duration.ZERO, PERIOD)
			.onBackpressureDrop()
			.concatMap((tick) -> KafkaEventLog
				.call(() -> admin.describeCluster(new DescribeClusterOptions().timeoutMs(TIMEOUT_MS)).nodes())
				.flatMap((nodes) -> writable(admin, written).map((refusal) -> refusal
					.map((reason) -> Health.down()
						.withDetail("bootstrapServers", bootstrapServers)
						.withDetail("brokers", nodes.size())
						.withDetail("writable", false)
						.withDetail("reason", reason)
						.build())
					.orElseGet(() -> Health.up()
						.withDetail("bootstrapServers", bootstrapServers)
						.withDetail("brokers", nodes.size())
						.build())))
				.onErrorResume((ex) -> Mono.just(Health.down()
					.withDetail("bootstrapServers", bootstrapServers)
					.withDetail("error", ex.getClass().getSimpleName())
					.build())))
			.subscribe(this.health::set);
	}

	/** Why a topic's partitions cannot take acknowledged writes now, if they cannot. */
	private static Mono<Optional<String>> writable(Admin admin, String topic) {
		if (topic == null) {
			return Mono.just(Optional.empty());
		}
		ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
		return Mono.zip(
				KafkaEventLog
					.call(() -> admin.describeTopics(List.of(topic), new DescribeTopicsOptions().timeoutMs(TIMEOUT_MS))
						.allTopicNames()),
				KafkaEventLog.call(() -> admin
					.describeConfigs(List.of(resource), new DescribeConfigsOptions().timeoutMs(TIMEOUT_MS))
					.all()))
			.map((described) -> {
				int minInsync = Integer
					.parseInt(described.getT2().get(resource).get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG).value());
				for (TopicPartitionInfo partition : described.getT1().get(topic).partitions()) {
					if (partition.leader() == null || partition.leader().isEmpty()) {
						return Optional.of("partition " + partition.partition() + " of " + topic + " has no leader");
					}
					if (partition.isr().size() < minInsync) {
						return Optional.of("partition " + partition.partition() + " of " + topic + " has "
								+ partition.isr().size() + " in-sync replica(s), min.insync.replicas is " + minInsync
								+ ": acknowledged writes are refused");
					}
				}
				return Optional.empty();
			});
	}

	public boolean isUp() {
		return this.health.get().getStatus().equals(org.springframework.boot.health.contributor.Status.UP);
	}

	@Override
	public Mono<Health> health() {
		return Mono.just(this.health.get());
	}

	@Override
	public void close() {
		this.probe.dispose();
	}

}
