package dev.streamgate.storage.memory;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.topic.Topic;

/**
 * A {@link TopicStore} in memory, for the tests of what reads topic definitions (the
 * Kafka store's pair, as {@code MemoryEventLog} is the event log's): always caught up,
 * each save a new revision, changes told to subscribers at once.
 */
public class MemoryTopicStore implements TopicStore {

	private final Map<String, StoredTopic> topics = new TreeMap<>();

	private final Sinks.Many<TopicChange> changes = Sinks.many().multicast().directBestEffort();

	@Override
	public synchronized Optional<StoredTopic> get(String id) {
		return Optional.ofNullable(this.topics.get(id));
	}

	@Override
	public synchronized List<StoredTopic> list() {
		return List.copyOf(this.topics.values());
	}

	@Override
	public Mono<StoredTopic> save(Topic topic) {
		return Mono.fromSupplier(() -> {
			StoredTopic stored;
			synchronized (this) {
				StoredTopic previous = this.topics.get(topic.id());
				stored = new StoredTopic(topic, (previous != null) ? previous.revision() + 1 : 0);
				this.topics.put(topic.id(), stored);
			}
			emit(new TopicChange(topic.id(), stored));
			return stored;
		});
	}

	@Override
	public Mono<Void> delete(String id) {
		return Mono.fromRunnable(() -> {
			synchronized (this) {
				this.topics.remove(id);
			}
			emit(new TopicChange(id, null));
		});
	}

	@Override
	public boolean isCaughtUp() {
		return true;
	}

	@Override
	public Flux<TopicChange> changes() {
		return this.changes.asFlux();
	}

	private synchronized void emit(TopicChange change) {
		this.changes.tryEmitNext(change);
	}

}
