package dev.streamgate.core.storage;

import java.util.Map;
import java.util.Optional;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.streamgate.core.webhook.DeliveryState;
import dev.streamgate.core.webhook.Webhook;

/**
 * The committed delivery state of every webhook, shared by all nodes so that a webhook
 * resumes where it stopped when it moves to another node.
 */
public interface DeliveryStates {

	/**
	 * The committed state of a webhook.
	 * @param webhookId the webhook id
	 * @return the state, or empty when nothing was committed
	 */
	Optional<DeliveryState> get(String webhookId);

	/**
	 * Whether this node has read every state committed before it started: until then
	 * {@link #get} may miss a webhook's state, and a dispatcher started from it would
	 * deliver again from the epoch's start.
	 * @return true once caught up
	 */
	boolean isCaughtUp();

	/**
	 * Commits a state. A state of an older epoch than the one committed is ignored.
	 * @param webhookId the webhook id
	 * @param state the state
	 * @return completes once committed
	 */
	Mono<Void> save(String webhookId, DeliveryState state);

	/**
	 * Commits the states of several webhooks at once, each as {@link #save} would.
	 * @param states the states by webhook id
	 * @return completes once all are committed
	 */
	default Mono<Void> saveAll(Map<String, DeliveryState> states) {
		return Flux.fromIterable(states.entrySet()).concatMap((entry) -> save(entry.getKey(), entry.getValue())).then();
	}

	/**
	 * Forgets a deleted webhook's state.
	 * @param webhookId the webhook id
	 * @return completes once forgotten
	 */
	Mono<Void> delete(String webhookId);

	/**
	 * The state that counts for a webhook: the committed one of its current epoch, or the
	 * epoch's start.
	 * @param webhook the webhook
	 * @return the state
	 */
	default DeliveryState current(Webhook webhook) {
		return get(webhook.id()).filter((state) -> state.epoch() == webhook.epoch())
			.orElseGet(() -> DeliveryState.start(webhook));
	}

}
