package dev.streamgate.core.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import dev.streamgate.core.event.EventLog;
import dev.streamgate.core.event.EventLogStatus;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.topic.Topic;

/**
 * Each topic's events in the Kafka topic {@code <prefix>events.<id>}, retained by time.
 */
public final class KafkaEventLog implements EventLog {

	private final Admin admin;

	private final String prefix;

	KafkaEventLog(Admin admin, String prefix) {
		this.admin = admin;
		this.prefix = prefix;
	}

	private String name(String topicId) {
		return this.prefix + "events." + topicId;
	}

	@Override
	public Mono<Void> create(Topic topic) {
		NewTopic events = new NewTopic(name(topic.id()), Optional.of(topic.partitions()), Optional.empty())
			.configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
					TopicConfig.RETENTION_MS_CONFIG, Long.toString(topic.retention().toMillis())));
		// A topic deleted a moment ago may still be on its way out of Kafka: wait for it
		// a little.
		return call(() -> this.admin.createTopics(List.of(events)).all())
			.retryWhen(Retry.backoff(6, Duration.ofMillis(250))
				.filter(TopicExistsException.class::isInstance)
				.onRetryExhaustedThrow((spec, signal) -> new StreamgateException(ProblemType.CONFLICT,
						"The events of an earlier topic '" + topic.id() + "' are still being deleted; retry shortly")))
			.onErrorMap(InvalidTopicException.class, (ex) -> new StreamgateException(ProblemType.CONFLICT,
					"Kafka refused the events topic of '" + topic.id() + "': " + ex.getMessage()));
	}

	@Override
	public Mono<Void> update(Topic previous, Topic topic) {
		Mono<Void> retention = Mono.empty();
		if (!previous.retention().equals(topic.retention())) {
			AlterConfigOp op = new AlterConfigOp(
					new ConfigEntry(TopicConfig.RETENTION_MS_CONFIG, Long.toString(topic.retention().toMillis())),
					AlterConfigOp.OpType.SET);
			ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, name(topic.id()));
			retention = call(() -> this.admin.incrementalAlterConfigs(Map.of(resource, List.of(op))).all());
		}
		Mono<Void> partitions = Mono.empty();
		if (topic.partitions() > previous.partitions()) {
			partitions = call(() -> this.admin
				.createPartitions(Map.of(name(topic.id()), NewPartitions.increaseTo(topic.partitions())))
				.all());
		}
		return retention.then(partitions);
	}

	@Override
	public Mono<Void> delete(String topicId) {
		return call(() -> this.admin.deleteTopics(List.of(name(topicId))).all())
			.onErrorResume(UnknownTopicOrPartitionException.class, (ex) -> Mono.empty());
	}

	@Override
	public Mono<EventLogStatus> status(Topic topic) {
		List<TopicPartition> partitions = IntStream.range(0, topic.partitions())
			.mapToObj((partition) -> new TopicPartition(name(topic.id()), partition))
			.toList();
		return Mono
			.zip(offsets(partitions, OffsetSpec.earliest()), offsets(partitions, OffsetSpec.latest()),
					offsets(partitions, OffsetSpec.maxTimestamp()))
			.map((offsets) -> {
				long retained = partitions.stream()
					.mapToLong((p) -> offsets.getT2().get(p).offset() - offsets.getT1().get(p).offset())
					.sum();
				String position = partitions.stream()
					.map((p) -> Long.toString(offsets.getT2().get(p).offset()))
					.collect(Collectors.joining("."));
				long last = offsets.getT3()
					.values()
					.stream()
					.mapToLong(ListOffsetsResultInfo::timestamp)
					.max()
					.orElse(-1);
				return new EventLogStatus(partitions.size(), position, retained,
						(retained > 0 && last >= 0) ? Instant.ofEpochMilli(last) : null);
			});
	}

	private Mono<Map<TopicPartition, ListOffsetsResultInfo>> offsets(List<TopicPartition> partitions, OffsetSpec spec) {
		Map<TopicPartition, OffsetSpec> request = partitions.stream()
			.collect(Collectors.toMap(Function.identity(), (p) -> spec));
		return call(() -> this.admin.listOffsets(request).all());
	}

	static <T> Mono<T> call(java.util.function.Supplier<KafkaFuture<T>> call) {
		return Mono.fromCompletionStage(() -> call.get().toCompletionStage())
			.onErrorMap(CompletionException.class, Throwable::getCause)
			.onErrorMap(org.apache.kafka.common.errors.TimeoutException.class, StreamgateException::kafkaUnavailable);
	}

}
