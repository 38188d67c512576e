package dev.streamgate.subscribe.ws;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.subscribe.follow.Encoder;
import dev.streamgate.subscribe.follow.Followed;

/**
 * Encodes followed events as WebSocket text messages, {@code {"topic", "type", "id",
 * "data"}}, once per event for every connection that writes it. {@code data} is the
 * event's JSON as stored, not parsed again.
 */
final class WsEncoder extends Encoder<WsMessage> {

	static final WsEncoder INSTANCE = new WsEncoder();

	private WsEncoder() {
	}

	@Override
	protected WsMessage encode(Followed followed) {
		String time = (followed.publishedAt() > 0) ? Instant.ofEpochMilli(followed.publishedAt()).toString() : null;
		return new WsMessage(message(followed.topicId(), followed.type().value(), followed.eventType(), followed.id(),
				time, followed.data()));
	}

	/**
	 * One message about no event in particular (a problem, a token notice).
	 * @param topic the topic id, or {@code null} for a message about the connection
	 * @param type the type
	 * @param data the JSON data
	 * @return the UTF-8 bytes
	 */
	static byte[] message(String topic, String type, byte[] data) {
		return message(topic, type, null, null, null, data);
	}

	/**
	 * One message.
	 * @param topic the topic id, or {@code null} for a message about the connection
	 * @param type the type
	 * @param eventType the type its publisher gave the event, or {@code null}
	 * @param id the cursor, or {@code null}
	 * @param time when the event was published (ISO 8601), or {@code null}
	 * @param data the JSON data
	 * @return the UTF-8 bytes
	 */
	private static byte[] message(String topic, String type, String eventType, String id, String time, byte[] data) {
		ByteArrayOutputStream out = new ByteArrayOutputStream(data.length + 96);
		out.writeBytes("{\"topic\":".getBytes(StandardCharsets.UTF_8));
		out.writeBytes(string(topic));
		out.writeBytes(",\"type\":".getBytes(StandardCharsets.UTF_8));
		out.writeBytes(string(type));
		if (eventType != null) {
			out.writeBytes(",\"eventType\":".getBytes(StandardCharsets.UTF_8));
			out.writeBytes(string(eventType));
		}
		if (id != null) {
			out.writeBytes(",\"id\":".getBytes(StandardCharsets.UTF_8));
			out.writeBytes(string(id));
		}
		if (time != null) {
			out.writeBytes(",\"time\":".getBytes(StandardCharsets.UTF_8));
			out.writeBytes(string(time));
		}
		out.writeBytes(",\"data\":".getBytes(StandardCharsets.UTF_8));
		out.writeBytes(data);
		out.write('}');
		return out.toByteArray();
	}

	private static byte[] string(String text) {
		if (text == null) {
			return "null".getBytes(StandardCharsets.UTF_8);
		}
		return JsonPatches.write(JsonPatches.json().createValue(text));
	}

}
