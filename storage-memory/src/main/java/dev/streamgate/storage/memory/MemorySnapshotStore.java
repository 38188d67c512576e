package dev.streamgate.storage.memory;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import reactor.core.publisher.Mono;

import dev.streamgate.core.storage.SnapshotStore;

/**
 * A {@link SnapshotStore} in memory, for the tests of publishers of snapshot topics: the
 * last checkpoint of each topic.
 */
public class MemorySnapshotStore implements SnapshotStore {

	private final Map<String, Checkpoint> checkpoints = new ConcurrentHashMap<>();

	@Override
	public Optional<Checkpoint> get(String topicId) {
		return Optional.ofNullable(this.checkpoints.get(topicId));
	}

	@Override
	public Mono<Void> save(String topicId, Checkpoint checkpoint) {
		return Mono.fromRunnable(() -> this.checkpoints.put(topicId, checkpoint));
	}

	@Override
	public Mono<Void> delete(String topicId) {
		return Mono.fromRunnable(() -> this.checkpoints.remove(topicId));
	}

}
