package dev.streamgate.core.webhook;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.json.JsonMapper;

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

	public static byte[] toBytes(Object value) {
		return MAPPER.writeValueAsBytes(value);
	}

	public static <T> T fromBytes(byte[] bytes, Class<T> type) {
		return MAPPER.readValue(bytes, type);
	}

}
