package dev.streamgate.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a Kafka topic the way its consumers would, with Kafka's own consumer: what the
 * gateway wrote into its events topics and into the topics of Kafka subscriptions.
 */
public final class KafkaRecords {

	private KafkaRecords() {
	}

	/**
	 * Every record of a topic, from its start to its end as it is now (for at most 10 s).
	 * @param bootstrapServers the broker
	 * @param topic the topic
	 * @return the records, partition by partition in offset order
	 */
	public static List<ConsumerRecord<String, String>> readAll(String bootstrapServers, String topic) {
		Properties config = new Properties();
		config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
				new StringDeserializer())) {
			List<TopicPartition> partitions = consumer.partitionsFor(topic)
				.stream()
				.map((info) -> new TopicPartition(topic, info.partition()))
				.toList();
			consumer.assign(partitions);
			consumer.seekToBeginning(partitions);
			Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
			List<ConsumerRecord<String, String>> records = new ArrayList<>();
			long deadline = System.currentTimeMillis() + 10_000;
			while (partitions.stream().anyMatch((p) -> consumer.position(p) < ends.get(p))
					&& System.currentTimeMillis() < deadline) {
				consumer.poll(Duration.ofMillis(200)).forEach(records::add);
			}
			return records;
		}
	}

}
