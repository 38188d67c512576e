package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.streamgate.core.storage.WebhookStore;
import dev.streamgate.core.webhook.Webhook;
import dev.streamgate.core.webhook.WebhookJson;

/**
 * Webhook registrations in the compacted {@code webhooks} topic: key = webhook id, value
 * = the webhook as JSON, tombstone = deleted.
 */
public final class KafkaWebhookStore implements WebhookStore, AutoCloseable {

	private final KafkaKeyedView<Webhook> view;

	KafkaWebhookStore(KafkaClients clients, KafkaWriter writer) {
		this.view = new KafkaKeyedView<>(clients.properties().topicPrefix() + "webhooks", clients, writer,
				WebhookJson::webhookFromBytes, (held, newer) -> newer);
	}

	void start() {
		this.view.start();
	}

	/**
	 * Waits, at start-up, until every registration written before has been read.
	 * @param timeout how long to wait; readiness stays down if it passes
	 */
	void awaitCaughtUp(Duration timeout) {
		this.view.awaitCaughtUp(timeout);
	}

	@Override
	public Optional<Webhook> get(String id) {
		return this.view.get(id);
	}

	@Override
	public List<Webhook> list() {
		return this.view.list();
	}

	@Override
	public Mono<Webhook> save(Webhook webhook) {
		return this.view.write(webhook.id(), WebhookJson.webhookToBytes(webhook)).thenReturn(webhook);
	}

	@Override
	public Mono<Void> delete(String id) {
		return this.view.write(id, null);
	}

	@Override
	public boolean isCaughtUp() {
		return this.view.isCaughtUp();
	}

	@Override
	public Flux<String> changes() {
		return this.view.changes();
	}

	@Override
	public void close() {
		this.view.close();
	}

}
