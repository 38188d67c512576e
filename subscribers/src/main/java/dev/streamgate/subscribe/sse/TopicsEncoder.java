package dev.streamgate.subscribe.sse;

import java.nio.charset.StandardCharsets;

import dev.streamgate.core.event.EventType;
import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.subscribe.follow.Encoder;
import dev.streamgate.subscribe.follow.Followed;

/**
 * Encodes followed events for streams of several topics: the data names its topic,
 * {@code {"topic":"prices","data":...}}, and the frame has no id line, since the id of
 * such a stream covers all of its topics and differs from one stream to the next. Made
 * once per event, like {@link SseEncoder}'s frames; each stream puts its id in front.
 */
final class TopicsEncoder extends Encoder<Frame> {

	static final TopicsEncoder INSTANCE = new TopicsEncoder();

	private TopicsEncoder() {
	}

	@Override
	protected Frame encode(Followed followed) {
		if (followed.isHeartbeat()) {
			return Frame.HEARTBEAT;
		}
		return Frame.of(null, followed.type(), wrap(followed.topicId(), followed.eventType(), followed.data()),
				followed.publishedAt());
	}

	/**
	 * The data of a stream of several topics.
	 * @param topicId the topic (ids need no escaping), or {@code null} for what concerns
	 * the whole stream
	 * @param eventType the type its publisher gave the event, or {@code null}
	 * @param json the event's JSON
	 * @return {@code {"topic":"...","eventType":"...","data":...}}
	 */
	static byte[] wrap(String topicId, String eventType, byte[] json) {
		String type = (eventType != null) ? "\"eventType\":"
				+ new String(JsonPatches.write(JsonPatches.json().createValue(eventType)), StandardCharsets.UTF_8) + ","
				: "";
		byte[] head = ((topicId != null) ? "{\"topic\":\"" + topicId + "\"," + type + "\"data\":"
				: "{" + type + "\"data\":")
			.getBytes(StandardCharsets.UTF_8);
		byte[] out = new byte[head.length + json.length + 1];
		System.arraycopy(head, 0, out, 0, head.length);
		System.arraycopy(json, 0, out, head.length, json.length);
		out[out.length - 1] = '}';
		return out;
	}

	/**
	 * A frame about the stream itself (the token expired, or about to) as streams of
	 * several topics write it.
	 * @param name the SSE event name
	 * @param json the JSON data
	 * @return the frame
	 */
	static Frame connection(String name, byte[] json) {
		return Frame.named(name, wrap(null, null, json));
	}

}
