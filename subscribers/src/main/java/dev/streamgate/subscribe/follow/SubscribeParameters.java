package dev.streamgate.subscribe.follow;

import dev.streamgate.core.event.CursorFormat;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;

/**
 * What a subscriber asks for, read the same way on every channel.
 */
public final class SubscribeParameters {

	private SubscribeParameters() {
	}

	/**
	 * The subscription mode.
	 * @param topic the topic
	 * @param requested the mode asked for, or {@code null} for the topic's default
	 * @return the mode
	 * @throws StreamgateException (406) when the topic does not allow it
	 */
	public static SubscriptionMode mode(Topic topic, String requested) {
		if (requested == null || requested.isBlank()) {
			return topic.defaultSubscriptionMode();
		}
		SubscriptionMode mode = SubscriptionMode.fromValue(requested);
		if (mode == null || !topic.subscriptionModes().contains(mode)) {
			throw new StreamgateException(ProblemType.MODE_NOT_ALLOWED, "Mode '" + requested + "' is not allowed on '"
					+ topic.id() + "'; it allows " + topic.subscriptionModes());
		}
		return mode;
	}

	/**
	 * Where the subscriber resumes.
	 * @param topic the topic
	 * @param text the last event id it saw, {@code earliest}, or {@code null} for live
	 * @return the position
	 * @throws StreamgateException (400) when the text is no cursor
	 */
	public static Resume resume(Topic topic, String text) {
		if (text == null || text.isBlank()) {
			return Resume.LIVE;
		}
		if ("earliest".equals(text)) {
			return Resume.EARLIEST;
		}
		try {
			return CursorFormat.of(topic).parse(text).map(Resume::after).orElse(Resume.UNKNOWN);
		}
		catch (IllegalArgumentException ex) {
			throw new StreamgateException(ProblemType.INVALID_CURSOR,
					ex.getMessage() + "; send back an id this topic's stream sent, or earliest");
		}
	}

}
