package dev.streamgate.storage.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;

/**
 * Client settings shared by everything that talks to Kafka, with what the design relies
 * on forced.
 */
public final class KafkaClients {

	/** How long bulk records wait to travel together. */
	static final Duration BULK_LINGER = Duration.ofMillis(20);

	/** How long a bulk reader's fetch waits for its minimum of bytes. */
	static final Duration BULK_FETCH_WAIT = Duration.ofSeconds(1);

	/**
	 * How long an idle follower's fetch waits on the broker (under request.timeout.ms).
	 */
	static final Duration FOLLOWER_FETCH_WAIT = Duration.ofSeconds(5);

	private final String bootstrapServers;

	private final Map<String, String> extra;

	private final StreamgateKafkaProperties properties;

	private final KafkaReplicationProperties replication;

	KafkaClients(String bootstrapServers, Map<String, String> extra, StreamgateKafkaProperties properties) {
		this(bootstrapServers, extra, properties, KafkaReplicationProperties.BROKER_DEFAULTS);
	}

	KafkaClients(String bootstrapServers, Map<String, String> extra, StreamgateKafkaProperties properties,
			KafkaReplicationProperties replication) {
		this.bootstrapServers = bootstrapServers;
		this.extra = extra;
		this.properties = properties;
		this.replication = replication;
	}

	/**
	 * How the topics streamgate creates are replicated.
	 * @return the settings
	 */
	KafkaReplicationProperties replication() {
		return this.replication;
	}

	public String bootstrapServers() {
		return this.bootstrapServers;
	}

	public StreamgateKafkaProperties properties() {
		return this.properties;
	}

	/**
	 * The partition Kafka's default partitioner gives a key's records.
	 * @param key the key
	 * @param partitions how many partitions the topic has
	 * @return the partition
	 */
	static int partitionOf(String key, int partitions) {
		return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
	}

	Map<String, Object> common(String clientPurpose) {
		Map<String, Object> config = new HashMap<>(this.extra);
		config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, this.bootstrapServers);
		config.put(CommonClientConfigs.CLIENT_ID_CONFIG, "streamgate-" + clientPurpose);
		return config;
	}

	Map<String, Object> producer(String clientPurpose) {
		Map<String, Object> config = common(clientPurpose);
		// A 202 or 201 promises the write survives a broker loss: all in-sync replicas,
		// no duplicates.
		config.put(ProducerConfig.ACKS_CONFIG, "all");
		config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
		int timeoutMs = (int) this.properties.writeTimeout().toMillis();
		// Fail fast while Kafka is unreachable so that callers can answer 503 rather than
		// hang.
		config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutMs);
		config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.max(1000, timeoutMs / 2));
		config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeoutMs);
		config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
		return config;
	}

	/**
	 * A producer for records written often and read rarely (delivery attempts, delivery
	 * cursors): it waits {@code linger.ms} to send many of them in one produce request,
	 * so that their cost on the broker grows with time rather than with the number of
	 * webhooks. Nobody waits on these writes to answer a request.
	 */
	Map<String, Object> bulkProducer(String clientPurpose) {
		Map<String, Object> config = producer(clientPurpose);
		config.put(ProducerConfig.LINGER_MS_CONFIG, (int) BULK_LINGER.toMillis());
		return config;
	}

	/**
	 * A consumer of such records: a fetch returns once it has {@code fetch.min.bytes} or
	 * has waited {@code fetch.max.wait.ms}, instead of once per record written.
	 */
	Map<String, Object> bulkConsumer(String clientPurpose) {
		Map<String, Object> config = consumer(clientPurpose);
		config.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 64 * 1024);
		// Idle, each such reader fetches once a second; busy, as soon as 64 KiB are
		// there.
		config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, (int) BULK_FETCH_WAIT.toMillis());
		return config;
	}

	/**
	 * A reader that follows a log for ever from one assignment (topic definitions,
	 * webhooks, snapshots): a record arriving answers its fetch at once, so a long wait
	 * costs no latency, and an idle node sends such a reader's fetch every
	 * {@link #FOLLOWER_FETCH_WAIT} rather than twice a second.
	 */
	Map<String, Object> followerConsumer(String clientPurpose) {
		Map<String, Object> config = consumer(clientPurpose);
		config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, (int) FOLLOWER_FETCH_WAIT.toMillis());
		return config;
	}

	/**
	 * A reader of history up to a known end: it reads what is there, so a fetch that
	 * finds nothing (the end reached, a fetch sent ahead) comes back at once rather than
	 * hold the next read of the same consumer.
	 */
	Map<String, Object> readConsumer(String clientPurpose) {
		Map<String, Object> config = consumer(clientPurpose);
		config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
		return config;
	}

	Map<String, Object> consumer(String clientPurpose) {
		Map<String, Object> config = common(clientPurpose + "-" + UUID.randomUUID().toString().substring(0, 8));
		config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
		config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
		config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
		return config;
	}

	KafkaWriter writer(String clientPurpose) {
		return KafkaWriter.of(clientPurpose, producer(clientPurpose));
	}

	/**
	 * The producers of publications: one with
	 * {@link StreamgateKafkaProperties#publishLinger()} and one without, chosen by how
	 * close publications come (see {@link PublicationSenders}); one producer when the
	 * linger is 0.
	 */
	PublicationSenders publicationSenders(String clientPurpose) {
		Duration linger = this.properties.publishLinger();
		Duration writeTimeout = this.properties.writeTimeout();
		if (linger.isZero()) {
			return PublicationSenders.of(publicationProducer(clientPurpose, linger), writeTimeout);
		}
		return new PublicationSenders(publicationProducer(clientPurpose, linger),
				publicationProducer(clientPurpose + "-at-once", Duration.ZERO), linger, writeTimeout, System::nanoTime);
	}

	/**
	 * A producer of publications, which sends on the caller's thread (an event loop): as
	 * {@link #producer}, with the linger, and a send never waits
	 * ({@code max.block.ms=0}): one that would (no metadata yet, a full buffer) fails at
	 * once and {@link PublicationSenders} tries it again later.
	 */
	private KafkaProducer<String, byte[]> publicationProducer(String clientPurpose, Duration linger) {
		Map<String, Object> config = producer(clientPurpose);
		config.put(ProducerConfig.LINGER_MS_CONFIG, (int) linger.toMillis());
		config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 0);
		return new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
	}

	KafkaWriter bulkWriter(String clientPurpose) {
		return KafkaWriter.of(clientPurpose, bulkProducer(clientPurpose));
	}

	KafkaWriter transactionalWriter(String clientPurpose) {
		Map<String, Object> config = producer(clientPurpose);
		// Unique per process: a batch is one transaction, all of it visible or none.
		// Under the topic prefix, as every other name streamgate gives Kafka, so that one
		// set of prefixed ACLs covers it.
		config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG,
				properties().topicPrefix() + clientPurpose + "-" + UUID.randomUUID());
		return KafkaWriter.transactional(clientPurpose, config);
	}

	Admin admin() {
		Map<String, Object> config = common("admin");
		int timeoutMs = (int) this.properties.writeTimeout().toMillis();
		config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(5000, timeoutMs));
		config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
		return Admin.create(config);
	}

}
