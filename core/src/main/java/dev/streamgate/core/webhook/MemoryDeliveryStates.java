package dev.streamgate.core.webhook;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import reactor.core.publisher.Mono;

/**
 * {@link DeliveryStates} in memory, for the tests of webhook delivery: keeps every commit
 * in order, so that a test can see what was committed when, and ignores a state of an
 * older epoch than the committed one, as the Kafka store does.
 */
public class MemoryDeliveryStates implements DeliveryStates {

	private final Map<String, DeliveryState> states = new ConcurrentHashMap<>();

	private final List<DeliveryState> commits = new ArrayList<>();

	@Override
	public Optional<DeliveryState> get(String webhookId) {
		return Optional.ofNullable(this.states.get(webhookId));
	}

	@Override
	public Mono<Void> save(String webhookId, DeliveryState state) {
		return Mono.fromRunnable(() -> {
			synchronized (this) {
				DeliveryState committed = this.states.get(webhookId);
				if (committed == null || committed.epoch() <= state.epoch()) {
					this.states.put(webhookId, state);
					this.commits.add(state);
				}
			}
		});
	}

	@Override
	public Mono<Void> delete(String webhookId) {
		return Mono.fromRunnable(() -> this.states.remove(webhookId));
	}

	/**
	 * Every state committed, oldest first.
	 * @return the commits
	 */
	public synchronized List<DeliveryState> commits() {
		return List.copyOf(this.commits);
	}

}
