package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import reactor.core.publisher.Mono;

import dev.streamgate.core.storage.DeliveryStates;
import dev.streamgate.core.webhook.DeliveryState;
import dev.streamgate.core.webhook.WebhookJson;

/**
 * Delivery states in the compacted {@code cursors} topic, key = webhook id. A record of
 * an older epoch than the one held (a late commit of a dispatcher that a replay overtook)
 * does not replace it.
 */
public final class KafkaDeliveryStates implements DeliveryStates, AutoCloseable {

	private final KafkaKeyedView<DeliveryState> view;

	KafkaDeliveryStates(KafkaClients clients, KafkaWriter writer) {
		String topic = clients.properties().topicPrefix() + "cursors";
		this.view = new KafkaKeyedView<>(topic, clients, clients.bulkConsumer(topic), writer,
				(bytes) -> WebhookJson.fromBytes(bytes, DeliveryState.class),
				(held, newer) -> (newer.epoch() >= held.epoch()) ? newer : held);
	}

	/** Starts reading the states, on a node that delivers webhooks or serves them. */
	void startReading() {
		this.view.start();
	}

	@Override
	public Optional<DeliveryState> get(String webhookId) {
		return this.view.get(webhookId);
	}

	@Override
	public boolean isCaughtUp() {
		return this.view.isCaughtUp();
	}

	void awaitCaughtUp(Duration timeout) {
		this.view.awaitCaughtUp(timeout);
	}

	@Override
	public Mono<Void> save(String webhookId, DeliveryState state) {
		// Committed often (every second per webhook) and read only when a webhook starts:
		// acknowledged by Kafka is enough.
		return this.view.append(webhookId, WebhookJson.toBytes(state));
	}

	@Override
	public Mono<Void> saveAll(Map<String, DeliveryState> states) {
		// A node's dispatchers commit together: one send for all, not one each.
		Map<String, byte[]> values = new LinkedHashMap<>();
		states.forEach((webhookId, state) -> values.put(webhookId, WebhookJson.toBytes(state)));
		return this.view.appendAll(values);
	}

	@Override
	public Mono<Void> delete(String webhookId) {
		return this.view.write(webhookId, null);
	}

	@Override
	public void close() {
		this.view.close();
	}

}
