package dev.streamgate.subscribe.webhook;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;

import tools.jackson.databind.json.JsonMapper;

/**
 * One message to a webhook: the envelope of API.md and its {@code webhook-id}, the same
 * on every attempt.
 *
 * @param messageId the {@code webhook-id}
 * @param type {@code snapshot}, {@code patch}, {@code event}, {@code problem} or
 * {@code ping}
 * @param publishedAt when the event was published
 * @param body the envelope, UTF-8 JSON (or a CloudEvent, or a binary-mode CloudEvent's
 * data)
 * @param contentType the body's content type
 * @param headers headers of the delivery itself (a binary-mode CloudEvent's {@code ce-*})
 */
public record Delivery(String messageId, String type, Instant publishedAt, byte[] body, String contentType,
		Map<String, String> headers) {

	/**
	 * This delivery with more headers of its own.
	 * @param more the headers (a trace context)
	 * @return the delivery
	 */
	public Delivery withHeaders(Map<String, String> more) {
		if (more.isEmpty()) {
			return this;
		}
		Map<String, String> all = new java.util.LinkedHashMap<>(this.headers);
		all.putAll(more);
		return new Delivery(this.messageId, this.type, this.publishedAt, this.body, this.contentType, all);
	}

	/**
	 * A delivery of a streamgate envelope.
	 * @param messageId the {@code webhook-id}
	 * @param type the delivery type
	 * @param publishedAt when the event was published
	 * @param body the envelope, UTF-8 JSON
	 */
	public Delivery(String messageId, String type, Instant publishedAt, byte[] body) {
		this(messageId, type, publishedAt, body, "application/json", Map.of());
	}

	private static final JsonMapper STRINGS = JsonMapper.builder().build();

	/**
	 * A delivery of an event.
	 * @param messageId the {@code webhook-id}
	 * @param type the delivery type
	 * @param topicId the topic id
	 * @param cursor the event's cursor
	 * @param publishedAt when it was published
	 * @param data the event's JSON, written into the envelope as it is
	 * @return the delivery
	 */
	public static Delivery of(String messageId, String type, String topicId, String cursor, Instant publishedAt,
			byte[] data) {
		return new Delivery(messageId, type, publishedAt, envelope(type, null, topicId, cursor, publishedAt, data));
	}

	/**
	 * The body of a delivery: the same for every webhook of a topic in the same mode.
	 * @param type the delivery type
	 * @param eventType the type its publisher gave the event, or {@code null}
	 * @param topicId the topic id
	 * @param cursor the event's cursor
	 * @param publishedAt when it was published
	 * @param data the event's JSON, written into the envelope as it is
	 * @return the envelope, UTF-8 JSON
	 */
	public static byte[] envelope(String type, String eventType, String topicId, String cursor, Instant publishedAt,
			byte[] data) {
		String head = "{\"type\":" + quote(type) + ((eventType != null) ? ",\"eventType\":" + quote(eventType) : "")
				+ ",\"topic\":" + quote(topicId) + ",\"id\":" + quote(cursor) + ",\"timestamp\":"
				+ quote(publishedAt.truncatedTo(ChronoUnit.MILLIS).toString()) + ",\"data\":";
		byte[] start = head.getBytes(StandardCharsets.UTF_8);
		byte[] body = new byte[start.length + data.length + 1];
		System.arraycopy(start, 0, body, 0, start.length);
		System.arraycopy(data, 0, body, start.length, data.length);
		body[body.length - 1] = '}';
		return body;
	}

	private static String quote(String text) {
		return STRINGS.writeValueAsString(text);
	}

}
