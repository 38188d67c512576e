package dev.streamgate.storage.memory;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

import reactor.core.publisher.Mono;

import dev.streamgate.core.storage.EventTypeCounts;
import dev.streamgate.core.topic.Topic;

/**
 * {@link EventTypeCounts} in memory, for tests of what publishes and lists types.
 */
public class MemoryEventTypeCounts implements EventTypeCounts {

	private final Map<String, Map<String, TypeCount>> byTopic = new ConcurrentHashMap<>();

	@Override
	public void add(Topic topic, String type, long events, Instant at) {
		this.byTopic.computeIfAbsent(key(topic), (key) -> new ConcurrentSkipListMap<>())
			.merge(type, new TypeCount(type, events, at), TypeCount::plus);
	}

	@Override
	public List<TypeCount> counts(Topic topic) {
		return List.copyOf(this.byTopic.getOrDefault(key(topic), Map.of()).values());
	}

	@Override
	public Mono<Void> forget(Topic topic) {
		return Mono.fromRunnable(() -> this.byTopic.remove(key(topic)));
	}

	private static String key(Topic topic) {
		return topic.id() + "@" + topic.incarnation();
	}

}
