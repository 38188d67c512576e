package dev.streamgate.core.webhook;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.json.JsonMapper;

import dev.streamgate.core.oauth.ClientCredentials;
import dev.streamgate.core.topic.KafkaEndpoint;
import dev.streamgate.core.topic.SubscriptionMode;

/**
 * The stored forms of webhooks, delivery states and attempts: read leniently, so that an
 * older node reads what a newer one wrote.
 */
public final class WebhookJson {

	private static final JsonMapper MAPPER = JsonMapper.builder()
		.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
		.disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
		.build();

	private WebhookJson() {
	}

	/**
	 * The stored form of a webhook: flat, its target's fields beside the others
	 * ({@code url} and {@code oauth2}, or {@code kafka}), as every version has written
	 * it.
	 * @param webhook the webhook
	 * @return UTF-8 JSON
	 */
	public static byte[] webhookToBytes(Webhook webhook) {
		Webhook.HttpTarget http = (webhook.target() instanceof Webhook.HttpTarget target) ? target : null;
		Webhook.KafkaTarget kafka = (webhook.target() instanceof Webhook.KafkaTarget target) ? target : null;
		return MAPPER.writeValueAsBytes(new StoredWebhook(webhook.id(), webhook.topicId(),
				(http != null) ? http.url() : null, webhook.mode(), webhook.headers(), webhook.secret(),
				webhook.description(), webhook.status(), webhook.disabledReason(), webhook.epoch(), webhook.start(),
				webhook.startWithSnapshot(), webhook.createdAt(), webhook.updatedAt(),
				(http != null) ? http.oauth2() : null, (kafka != null) ? kafka.endpoint() : null, webhook.types(),
				webhook.filter(), webhook.pointer(), webhook.cloudEvents()));
	}

	/**
	 * Reads a stored webhook.
	 * @param bytes UTF-8 JSON
	 * @return the webhook
	 */
	public static Webhook webhookFromBytes(byte[] bytes) {
		StoredWebhook stored = MAPPER.readValue(bytes, StoredWebhook.class);
		Webhook.Target target = (stored.kafka() != null) ? new Webhook.KafkaTarget(stored.kafka())
				: new Webhook.HttpTarget(stored.url(), stored.oauth2());
		return new Webhook(stored.id(), stored.topicId(), target, stored.mode(), stored.headers(), stored.secret(),
				stored.description(), stored.status(), stored.disabledReason(), stored.epoch(), stored.start(),
				stored.startWithSnapshot(), stored.createdAt(), stored.updatedAt(), stored.types(), stored.filter(),
				stored.pointer(), stored.cloudEvents());
	}

	public static byte[] toBytes(Object value) {
		return MAPPER.writeValueAsBytes(value);
	}

	public static <T> T fromBytes(byte[] bytes, Class<T> type) {
		return MAPPER.readValue(bytes, type);
	}

	/** A webhook as it is stored: a url with its oauth2, or a kafka endpoint. */
	record StoredWebhook(String id, String topicId, String url, SubscriptionMode mode, Map<String, String> headers,
			String secret, String description, Webhook.Status status, String disabledReason, long epoch, String start,
			boolean startWithSnapshot, Instant createdAt, Instant updatedAt, ClientCredentials oauth2,
			KafkaEndpoint kafka, List<String> types, String filter, String pointer, String cloudEvents) {

	}

}
