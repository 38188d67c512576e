package dev.streamgate.storage.kafka;

import java.time.Duration;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How streamgate lays out and uses its Kafka topics.
 *
 * @param topicPrefix prefix of every Kafka topic streamgate owns
 * @param leasePartitions partitions of the leases topic: the most nodes that can share a
 * role's work
 * @param attemptsRetention how long webhook delivery attempts are kept
 * @param writeTimeout how long a write may wait for Kafka's acknowledgement before it
 * fails
 * @param startupTimeout how long start-up waits for an unreachable Kafka before it gives
 * up
 * @param leaseSessionTimeout how long a silent node keeps its leases (the topics it
 * polls, the webhooks it delivers) before another node takes them over
 * @param publishLinger how long a publication waits for others to go to Kafka in the same
 * produce request ({@code linger.ms} of the events' producer): under load one request,
 * one broker append and one wake-up of the readers carry several events; it adds at most
 * this much to an event's latency, and only a publication that came less than this after
 * the one before it waits (see {@link PublicationSenders})
 * @param tailPause how long the node's event tail waits before its next fetch after one
 * that brought only records this node wrote, which it delivered already at their
 * acknowledgement (see {@link KafkaEventTail}): a node that writes alone fetches a few
 * times a second instead of once per event, and another node's event may reach this
 * node's subscribers up to this much later; {@code 0ms} fetches at once
 */
@Validated
@ConfigurationProperties("streamgate.kafka")
public record StreamgateKafkaProperties(
		@DefaultValue("streamgate.") @NotBlank @Pattern(regexp = "[a-zA-Z0-9._-]*") String topicPrefix,
		@DefaultValue("12") @Min(1) int leasePartitions, @DefaultValue("7d") Duration attemptsRetention,
		@DefaultValue("10s") Duration writeTimeout, @DefaultValue("60s") Duration startupTimeout,
		@DefaultValue("10s") Duration leaseSessionTimeout,
		@DefaultValue("2ms") @DurationMin(millis = 0) @DurationMax(seconds = 1) Duration publishLinger,
		@DefaultValue("50ms") @DurationMin(millis = 0) @DurationMax(seconds = 1) Duration tailPause) {

	public String topicsTopic() {
		return this.topicPrefix + "topics";
	}

}
