package dev.streamgate.subscribe.sse;

import dev.streamgate.core.cloudevents.CloudEvents;
import dev.streamgate.subscribe.follow.Encoder;
import dev.streamgate.subscribe.follow.Followed;

/**
 * Encodes followed events as SSE frames whose data is the structured CloudEvent
 * ({@code ?format=cloudevents}): the same id and event name as the plain frames, the
 * event's attributes around its data. What has no position (a problem about the stream
 * itself) is sent as it is.
 */
final class CloudEventsSseEncoder extends Encoder<Frame> {

	static final CloudEventsSseEncoder INSTANCE = new CloudEventsSseEncoder();

	private CloudEventsSseEncoder() {
	}

	@Override
	protected Frame encode(Followed followed) {
		if (followed.isHeartbeat()) {
			return Frame.HEARTBEAT;
		}
		if (followed.id() == null) {
			return Frame.of(null, followed.type(), followed.data(), followed.publishedAt());
		}
		return Frame.of(followed.id(), followed.type(), CloudEvents.writeStructured(followed.topicId(), followed.id(),
				followed.type().value(), followed.event(), followed.data()), followed.publishedAt());
	}

}
