package dev.streamgate.core.webhook;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.streamgate.core.oauth.ClientCredentials;
import dev.streamgate.core.topic.KafkaEndpoint;
import dev.streamgate.core.topic.SubscriptionMode;

import static org.assertj.core.api.Assertions.assertThat;

class WebhookJsonTests {

	private static Webhook webhook(Webhook.Target target) {
		return new Webhook("wh_1", "orders", target, SubscriptionMode.EVENT, Map.of("X-Team", "a"), "whsec_x", null,
				Webhook.Status.ACTIVE, null, 2, "0-5", false, Instant.parse("2026-12-01T00:00:00Z"),
				Instant.parse("2026-12-02T00:00:00Z"), List.of("order.*"), null, null, null);
	}

	@Test
	void eachKindOfTargetRoundTripsThroughTheStoredForm() {
		Webhook http = webhook(new Webhook.HttpTarget("https://example.com/hook",
				new ClientCredentials(URI.create("https://example.com/token"), "id", "secret", null, null, null)));
		Webhook kafka = webhook(new Webhook.KafkaTarget(new KafkaEndpoint(null, "orders-out", null)));
		assertThat(WebhookJson.webhookFromBytes(WebhookJson.webhookToBytes(http))).isEqualTo(http);
		assertThat(WebhookJson.webhookFromBytes(WebhookJson.webhookToBytes(kafka))).isEqualTo(kafka);
	}

	@Test
	void theStoredFormKeepsTheTargetsFieldsFlatAsEveryVersionWroteThem() {
		String stored = new String(
				WebhookJson.webhookToBytes(
						webhook(new Webhook.KafkaTarget(new KafkaEndpoint("kafka-1:9092", "orders-out", null)))),
				StandardCharsets.UTF_8);
		assertThat(stored).contains("\"url\":null")
			.contains("\"kafka\":{\"bootstrapServers\":\"kafka-1:9092\",\"topic\":\"orders-out\"}")
			.doesNotContain("target");
		byte[] written = """
				{"id":"wh_9","topicId":"orders","url":"https://example.com/hook","mode":"event",
				"headers":{},"secret":"whsec_x","status":"active","epoch":0,"start":"-1",
				"startWithSnapshot":false,"createdAt":"2026-12-01T00:00:00Z","updatedAt":"2026-12-01T00:00:00Z",
				"oauth2":null,"kafka":null,"aFieldOfANewerVersion":1}""".getBytes(StandardCharsets.UTF_8);
		assertThat(WebhookJson.webhookFromBytes(written).target())
			.isEqualTo(new Webhook.HttpTarget("https://example.com/hook", null));
	}

}
