package dev.streamgate.subscribe.sse;

import dev.streamgate.subscribe.follow.Encoder;
import dev.streamgate.subscribe.follow.Followed;

/**
 * Encodes followed events as SSE frames, once per event for every stream that writes it.
 */
final class SseEncoder extends Encoder<Frame> {

	static final SseEncoder INSTANCE = new SseEncoder();

	private SseEncoder() {
	}

	@Override
	protected Frame encode(Followed followed) {
		if (followed.isHeartbeat()) {
			return Frame.HEARTBEAT;
		}
		return Frame.of(followed.id(), followed.type(), followed.data(), followed.publishedAt());
	}

}
