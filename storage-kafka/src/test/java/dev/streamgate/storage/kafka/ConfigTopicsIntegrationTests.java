package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

@ExtendWith(OutputCaptureExtension.class)
class ConfigTopicsIntegrationTests {

	private static KafkaClients clients;

	private static Admin admin;

	@BeforeAll
	static void connect() {
		clients = new KafkaClients(TestKafka.bootstrapServers(), Map.of(), properties("unused."));
		admin = clients.admin();
	}

	@AfterAll
	static void close() {
		admin.close();
	}

	static StreamgateKafkaProperties properties(String prefix) {
		return new StreamgateKafkaProperties(prefix, 3, Duration.ofDays(7), Duration.ofSeconds(10),
				Duration.ofSeconds(10), Duration.ofSeconds(6), Duration.ZERO, Duration.ofMillis(50));
	}

	private static ConfigTopics configTopics(String prefix) {
		return new ConfigTopics(admin, new KafkaClients(TestKafka.bootstrapServers(), Map.of(), properties(prefix)),
				TestKafka.eventStorage());
	}

	@Test
	void ensureCreatesMissingTopicsWithTheirLayout() throws Exception {
		String prefix = TestKafka.uniquePrefix();
		configTopics(prefix).ensure();
		// A fresh broker may list new topics a moment after creating them.
		org.awaitility.Awaitility.await()
			.atMost(java.time.Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(admin.listTopics().names().get()).contains(prefix + "topics",
					prefix + "webhooks", prefix + "cursors", prefix + "snapshots", prefix + "event-types",
					prefix + "leases", prefix + "attempts", prefix + "presence"));
		assertThat(admin.describeTopics(List.of(prefix + "leases"))
			.allTopicNames()
			.get()
			.get(prefix + "leases")
			.partitions()).hasSize(3);
		// A second start finds them all as they should be.
		configTopics(prefix).ensure();
	}

	@Test
	void theReplicationSettingsApplyToEveryTopicCreatedAndAClusterUnderThreeIsWarnedOf(CapturedOutput output)
			throws Exception {
		String prefix = TestKafka.uniquePrefix();
		KafkaClients replicated = new KafkaClients(TestKafka.bootstrapServers(), Map.of(), properties(prefix),
				new KafkaReplicationProperties((short) 1, 1));
		new ConfigTopics(admin, replicated, TestKafka.eventStorage()).ensure(true);
		String topics = prefix + "topics";
		ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topics);
		org.awaitility.Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(admin.describeConfigs(List.of(resource))
				.all()
				.get()
				.get(resource)
				.get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG)
				.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG));
		assertThat(output.getOut()).contains(topics + " has 1 replica: an acknowledged write is lost with a broker")
			.contains("streamgate.kafka.replication-factor=3");
		// The embedded broker is one node: nothing to warn of.
		String alone = TestKafka.uniquePrefix();
		new ConfigTopics(admin, new KafkaClients(TestKafka.bootstrapServers(), Map.of(), properties(alone)),
				TestKafka.eventStorage())
			.ensure(false);
		assertThat(output.getOut()).doesNotContain(alone + "topics has 1 replica");
	}

	@Test
	void ensureRefusesATopicsTopicWithoutCompaction() throws Exception {
		String prefix = TestKafka.uniquePrefix();
		admin.createTopics(List.of(new NewTopic(prefix + "topics", Optional.of(1), Optional.empty())
			.configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE)))).all().get();
		assertThatIllegalStateException().isThrownBy(() -> configTopics(prefix).ensure())
			.withMessageContaining(prefix + "topics has cleanup.policy=delete but needs compact")
			.withMessageContaining("kafka-configs.sh --alter");
	}

	@Test
	void ensureRefusesATopicsTopicWithSeveralPartitions() throws Exception {
		String prefix = TestKafka.uniquePrefix();
		admin.createTopics(List.of(new NewTopic(prefix + "topics", Optional.of(2), Optional.empty())
			.configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)))).all().get();
		assertThatIllegalStateException().isThrownBy(() -> configTopics(prefix).ensure())
			.withMessageContaining(prefix + "topics has 2 partitions but needs exactly 1");
	}

}
