package dev.streamgate.storage.memory;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import reactor.core.publisher.Mono;

import dev.streamgate.core.storage.DeliveryStates;
import dev.streamgate.core.webhook.DeliveryState;

/**
 * {@link DeliveryStates} in memory, for the tests of webhook delivery: ignores a state of
 * an older epoch than the committed one, as the Kafka store does.
 */
public class MemoryDeliveryStates implements DeliveryStates {

	private final Map<String, DeliveryState> states = new ConcurrentHashMap<>();

	@Override
	public Optional<DeliveryState> get(String webhookId) {
		return Optional.ofNullable(this.states.get(webhookId));
	}

	@Override
	public boolean isCaughtUp() {
		return true;
	}

	@Override
	public Mono<Void> save(String webhookId, DeliveryState state) {
		return Mono.fromRunnable(() -> this.states.merge(webhookId, state,
				(committed, next) -> (committed.epoch() <= next.epoch()) ? next : committed));
	}

	@Override
	public Mono<Void> delete(String webhookId) {
		return Mono.fromRunnable(() -> this.states.remove(webhookId));
	}

}
