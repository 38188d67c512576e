package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;

import dev.streamgate.core.event.EventStorageProperties;

/**
 * Creates streamgate's configuration topics when they are missing, and refuses to start
 * on existing ones whose layout would break the design.
 * <p>
 * The definitions topics are compacted: the latest record per key is the state, a
 * tombstone a deletion. {@code topics} has exactly one partition so that every node
 * applies topic definitions in one total order.
 */
final class ConfigTopics {

	private static final Log logger = LogFactory.getLog(ConfigTopics.class);

	/** The topic of Idempotency-Key answers, after the prefix. */
	static final String IDEMPOTENCY = "idempotency";

	/** The longest dedupe window (streamgate.ingest.idempotency-window) Kafka keeps. */
	static final Duration IDEMPOTENCY_RETENTION = Duration.ofDays(7);

	private final Admin admin;

	private final StreamgateKafkaProperties properties;

	private final String bootstrapServers;

	private final EventStorageProperties storage;

	private final KafkaReplicationProperties replication;

	ConfigTopics(Admin admin, KafkaClients clients, EventStorageProperties storage) {
		this.admin = admin;
		this.storage = storage;
		this.properties = clients.properties();
		this.bootstrapServers = clients.bootstrapServers();
		this.replication = clients.replication();
	}

	List<Spec> specs() {
		String prefix = this.properties.topicPrefix();
		String retentionMs = Long.toString(this.properties.attemptsRetention().toMillis());
		return List.of(new Spec(prefix + "topics", 1, true, TopicConfig.CLEANUP_POLICY_COMPACT, Map.of()),
				new Spec(prefix + "webhooks", 1, false, TopicConfig.CLEANUP_POLICY_COMPACT, Map.of()),
				new Spec(prefix + "cursors", 1, false, TopicConfig.CLEANUP_POLICY_COMPACT, Map.of()),
				new Spec(prefix + "snapshots", 1, false, TopicConfig.CLEANUP_POLICY_COMPACT, Map.of()),
				new Spec(prefix + "event-types", 1, false, TopicConfig.CLEANUP_POLICY_COMPACT, Map.of()),
				// The source offsets of kafka publishers, one record per transaction: a
				// new owner reads it from the start, so it is compacted often.
				new Spec(prefix + KafkaMirroring.MIRRORS, 1, true, TopicConfig.CLEANUP_POLICY_COMPACT,
						Map.of(TopicConfig.SEGMENT_MS_CONFIG, "600000", TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG,
								"0.1")),
				// What live nodes hold (the Mercure hub's subscriptions): read only
				// where used.
				new Spec(prefix + KafkaPresence.TOPIC, 1, false, TopicConfig.CLEANUP_POLICY_COMPACT,
						Map.of(TopicConfig.SEGMENT_MS_CONFIG, "600000", TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG,
								"0.1")),
				new Spec(prefix + "leases", this.properties.leasePartitions(), false, TopicConfig.CLEANUP_POLICY_DELETE,
						Map.of(TopicConfig.RETENTION_MS_CONFIG, "60000")),
				// The shared event log: a topic's partition is the hash of its id modulo
				// the
				// count, which therefore can never change.
				new Spec(KafkaEventLog.sharedName(prefix), this.storage.sharedPartitions(), true,
						TopicConfig.CLEANUP_POLICY_DELETE,
						Map.of(TopicConfig.RETENTION_MS_CONFIG,
								Long.toString(this.storage.sharedRetention().toMillis()))),
				new Spec(prefix + "attempts", 1, false, TopicConfig.CLEANUP_POLICY_DELETE,
						Map.of(TopicConfig.RETENTION_MS_CONFIG, retentionMs)),
				// Compacted to the newest answer per key, and deleted once no dedupe
				// window
				// can need it.
				new Spec(prefix + IDEMPOTENCY, 1, false, TopicConfig.CLEANUP_POLICY_COMPACT,
						Map.of(TopicConfig.CLEANUP_POLICY_CONFIG,
								TopicConfig.CLEANUP_POLICY_COMPACT + "," + TopicConfig.CLEANUP_POLICY_DELETE,
								TopicConfig.RETENTION_MS_CONFIG, Long.toString(IDEMPOTENCY_RETENTION.toMillis()))));
	}

	/**
	 * Creates the missing topics and checks the existing ones, waiting for Kafka up to
	 * the start-up timeout.
	 * @throws IllegalStateException when Kafka stays unreachable or a topic is wrong
	 */
	void ensure() {
		ensure(false);
	}

	/**
	 * Creates the missing topics and checks the existing ones, as {@link #ensure()} does,
	 * and warns when the definitions topic has fewer than 3 replicas.
	 * @param cluster whether Kafka is a cluster of its own (not the embedded broker),
	 * where fewer than 3 replicas lose acknowledged writes with a broker
	 * @throws IllegalStateException when Kafka stays unreachable or a topic is wrong
	 */
	void ensure(boolean cluster) {
		ensureWaiting();
		if (cluster) {
			warnWhenUnderReplicated();
		}
	}

	private void warnWhenUnderReplicated() {
		String name = this.properties.topicsTopic();
		try {
			int replicas = this.admin.describeTopics(List.of(name))
				.allTopicNames()
				.get(10, TimeUnit.SECONDS)
				.get(name)
				.partitions()
				.get(0)
				.replicas()
				.size();
			if (replicas < 3) {
				logger.warn(name + " has " + replicas + " replica" + ((replicas == 1) ? "" : "s")
						+ ": an acknowledged write is lost with a broker. Give the topics streamgate creates 3 "
						+ "(streamgate.kafka.replication-factor=3 and streamgate.kafka.min-insync-replicas=2, or "
						+ "the brokers' default.replication.factor), and raise the existing ones' with "
						+ "kafka-reassign-partitions.sh");
			}
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.debug("Cannot tell the replication of " + name + ": " + ex.getMessage());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void ensureWaiting() {
		long deadline = System.nanoTime() + this.properties.startupTimeout().toNanos();
		while (true) {
			try {
				ensureOnce();
				return;
			}
			catch (ExecutionException | TimeoutException ex) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("Kafka at " + this.bootstrapServers + " was unreachable for "
							+ this.properties.startupTimeout() + " (streamgate.kafka.startup-timeout)", ex);
				}
				logger.warn("Kafka not reachable yet, retrying: " + ex.getMessage());
				sleep(Duration.ofSeconds(1));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while checking Kafka topics", ex);
			}
		}
	}

	private void ensureOnce() throws ExecutionException, InterruptedException, TimeoutException {
		List<Spec> specs = specs();
		Set<String> existing = this.admin.listTopics().names().get(10, TimeUnit.SECONDS);
		List<NewTopic> missing = specs.stream()
			.filter((spec) -> !existing.contains(spec.name()))
			.map((spec) -> spec.newTopic(this.replication))
			.toList();
		boolean raced = false;
		if (!missing.isEmpty()) {
			try {
				this.admin.createTopics(missing).all().get(10, TimeUnit.SECONDS);
				logger.info("Created Kafka topics " + missing.stream().map(NewTopic::name).toList());
			}
			catch (ExecutionException ex) {
				if (!(ex.getCause() instanceof TopicExistsException)) {
					throw ex;
				}
				// Created meanwhile (another node), or not listed yet: check them too.
				raced = true;
			}
		}
		check(raced ? specs : specs.stream().filter((spec) -> existing.contains(spec.name())).toList());
	}

	private void check(List<Spec> specs) throws ExecutionException, InterruptedException, TimeoutException {
		if (specs.isEmpty()) {
			return;
		}
		Collection<String> names = specs.stream().map(Spec::name).toList();
		Map<String, TopicDescription> descriptions = this.admin.describeTopics(names)
			.allTopicNames()
			.get(10, TimeUnit.SECONDS);
		Map<ConfigResource, Config> configs = this.admin
			.describeConfigs(names.stream().map((name) -> new ConfigResource(ConfigResource.Type.TOPIC, name)).toList())
			.all()
			.get(10, TimeUnit.SECONDS);
		List<String> problems = new ArrayList<>();
		for (Spec spec : specs) {
			String policy = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, spec.name()))
				.get(TopicConfig.CLEANUP_POLICY_CONFIG)
				.value();
			if (!Set.of(policy.split(",")).contains(spec.cleanupPolicy())) {
				problems.add(spec.name() + " has cleanup.policy=" + policy + " but needs " + spec.cleanupPolicy()
						+ ": kafka-configs.sh --alter --entity-type topics --entity-name " + spec.name()
						+ " --add-config cleanup.policy=" + spec.cleanupPolicy());
			}
			int partitions = descriptions.get(spec.name()).partitions().size();
			if (spec.exactPartitions() && partitions != spec.partitions()) {
				problems.add(spec.name() + " has " + partitions + " partitions but needs exactly " + spec.partitions()
						+ ": delete it (after a backup) so that streamgate recreates it, or choose another streamgate.kafka.topic-prefix");
			}
		}
		if (!problems.isEmpty()) {
			throw new IllegalStateException("Kafka topics are not laid out as streamgate needs them:\n  "
					+ problems.stream().collect(Collectors.joining("\n  ")));
		}
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * What one configuration topic must look like.
	 *
	 * @param name the topic name
	 * @param partitions partitions to create it with
	 * @param exactPartitions whether an existing topic must have exactly that many
	 * @param cleanupPolicy the cleanup policy it must have
	 * @param configs further configs to create it with
	 */
	record Spec(String name, int partitions, boolean exactPartitions, String cleanupPolicy,
			Map<String, String> configs) {

		NewTopic newTopic(KafkaReplicationProperties replication) {
			Map<String, String> all = new HashMap<>(this.configs);
			all.putIfAbsent(TopicConfig.CLEANUP_POLICY_CONFIG, this.cleanupPolicy);
			return replication.newTopic(this.name, this.partitions, all);
		}

	}

}
