package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.topic.TopicJson;

/**
 * Topic definitions kept in the compacted {@code topics} Kafka topic.
 * <p>
 * Record format: key = topic id (UTF-8), value = the topic as JSON, a {@code null} value
 * (a tombstone) = deleted. The topic has one partition, so the record offset orders every
 * write and serves as the revision behind each topic's ETag. Every node reads the whole
 * topic into an immutable sorted map that is replaced on each change.
 */
public final class KafkaTopicStore implements TopicStore, AutoCloseable {

	private final KafkaConfigLog log;

	private final Sinks.Many<TopicChange> changes = Sinks.many().multicast().directBestEffort();

	private volatile TreeMap<String, StoredTopic> topics = new TreeMap<>();

	KafkaTopicStore(KafkaClients clients, KafkaWriter writer) {
		this.log = new KafkaConfigLog(clients.properties().topicsTopic(), clients, writer, this::apply);
	}

	void start() {
		this.log.start();
	}

	/**
	 * Waits, at start-up, until every definition written before has been read.
	 * @param timeout how long to wait; readiness stays down if it passes
	 */
	void awaitCaughtUp(Duration timeout) {
		this.log.awaitCaughtUp(timeout);
	}

	private void apply(KafkaConfigLog.Entry entry) {
		TreeMap<String, StoredTopic> next = new TreeMap<>(this.topics);
		StoredTopic stored = null;
		if (entry.value() == null) {
			next.remove(entry.key());
		}
		else {
			stored = new StoredTopic(TopicJson.fromBytes(entry.value()), entry.offset());
			next.put(entry.key(), stored);
		}
		this.topics = next;
		this.changes.tryEmitNext(new TopicChange(entry.key(), stored));
	}

	@Override
	public Optional<StoredTopic> get(String id) {
		return Optional.ofNullable(this.topics.get(id));
	}

	@Override
	public List<StoredTopic> list() {
		return List.copyOf(this.topics.values());
	}

	@Override
	public Mono<StoredTopic> save(Topic topic) {
		return this.log.write(topic.id(), TopicJson.toBytes(topic))
			.map((offset) -> get(topic.id()).filter((stored) -> stored.revision() >= offset)
				.orElse(new StoredTopic(topic, offset)));
	}

	@Override
	public Mono<Void> delete(String id) {
		return this.log.write(id, null).then();
	}

	@Override
	public boolean isCaughtUp() {
		return this.log.isCaughtUp();
	}

	@Override
	public Flux<TopicChange> changes() {
		return this.changes.asFlux();
	}

	@Override
	public void close() {
		this.log.close();
		this.changes.tryEmitComplete();
	}

}
