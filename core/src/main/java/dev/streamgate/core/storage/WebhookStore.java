package dev.streamgate.core.storage;

import java.util.List;
import java.util.Optional;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.streamgate.core.webhook.Webhook;

/**
 * The webhook registrations every node shares, materialized in memory like the topic
 * definitions: reads from memory, a write completes once this node's view holds it.
 */
public interface WebhookStore {

	/**
	 * A webhook.
	 * @param id the webhook id
	 * @return the webhook, or empty
	 */
	Optional<Webhook> get(String id);

	/**
	 * Every webhook, ordered by id.
	 * @return the webhooks
	 */
	List<Webhook> list();

	/**
	 * The webhooks of a topic, ordered by id.
	 * @param topicId the topic id
	 * @return its webhooks
	 */
	default List<Webhook> list(String topicId) {
		return list().stream().filter((webhook) -> webhook.topicId().equals(topicId)).toList();
	}

	/**
	 * Stores a webhook, creating or replacing the one with its id.
	 * @param webhook the webhook
	 * @return the webhook, once this node's view holds it
	 */
	Mono<Webhook> save(Webhook webhook);

	/**
	 * Deletes a webhook.
	 * @param id the webhook id
	 * @return completes once this node's view no longer holds it
	 */
	Mono<Void> delete(String id);

	/**
	 * Whether the view has read every registration written before it started.
	 * @return true once caught up
	 */
	boolean isCaughtUp();

	/**
	 * The ids of webhooks as this node sees them change.
	 * @return the changed ids, from now on
	 */
	Flux<String> changes();

}
