package dev.streamgate.subscribe.follow;

import java.security.Principal;
import java.util.List;

import dev.streamgate.core.event.CursorFormat;
import dev.streamgate.core.filter.EventTypes;
import dev.streamgate.core.filter.Selection;
import dev.streamgate.core.patch.DocumentView;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.PayloadType;
import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.web.SubscribeAccess;

/**
 * What a subscriber asks for, read the same way on every channel.
 */
public final class SubscribeParameters {

	/** The types parameter, as the API descriptions put it. */
	public static final String TYPES = "only events of these types: a comma-separated list of names, * standing "
			+ "for any characters (order.*,invoice.paid); event topics only";

	/** The filter parameter, as the API descriptions put it. */
	public static final String FILTER = "only events for which this CEL expression is true, over data (the event's "
			+ "JSON), type, key, headers, time and topic, e.g. data.price > 100.0 && type == 'order.created'; "
			+ "an event it cannot evaluate (a missing field) does not match; event topics only";

	/** The pointer parameter, as the API descriptions put it. */
	public static final String POINTER = "a view of a snapshot topic: only this part of the document (an RFC 6901 "
			+ "JSON pointer such as /prices/EURUSD), as a snapshot, then the patches that change it, relative to it";

	private SubscribeParameters() {
	}

	/**
	 * A topic that a connection names after it was authenticated (a WebSocket's
	 * subscribe, a stream of several topics), checked against the connection's token.
	 * @param topics the topics
	 * @param access the grants
	 * @param principal the connection's principal, or {@code null} without a token
	 * @param topicId the topic's id
	 * @return the topic
	 * @throws StreamgateException 404 when there is no such topic, 401 when it needs a
	 * token, 403 when the token does not grant it
	 */
	public static Topic topic(TopicStore topics, SubscribeAccess access, Principal principal, String topicId) {
		Topic topic = topics.get(topicId)
			.map(StoredTopic::topic)
			.orElseThrow(() -> new StreamgateException(ProblemType.TOPIC_NOT_FOUND,
					"Topic '" + topicId + "' does not exist"));
		switch (access.check(principal, topic)) {
			case UNAUTHENTICATED -> throw new StreamgateException(ProblemType.UNAUTHORIZED,
					"Topic '" + topicId + "' needs a token: the Authorization header, the access_token query "
							+ "parameter or the streamgate_token cookie");
			case FORBIDDEN -> throw new StreamgateException(ProblemType.FORBIDDEN,
					"The token does not grant subscribing to '" + topicId + "'");
			default -> {
			}
		}
		return topic;
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
	 * What a subscriber asks for, from query parameters.
	 * @param topic the topic
	 * @param types a comma-separated list of event types and patterns with {@code *}, or
	 * {@code null} for all
	 * @param filter a CEL expression, or {@code null} for none
	 * @param view a JSON pointer into a snapshot topic's document, or {@code null} for
	 * the whole document
	 * @return the selection
	 * @throws StreamgateException (400) for a bad type pattern, filter or pointer, types
	 * or a filter on a snapshot topic, a view on an event topic
	 */
	public static Selection selection(Topic topic, String types, String filter, String view) {
		return selection(topic, (types != null) ? EventTypes.split(types) : null, filter, view, "");
	}

	/**
	 * What a subscriber asks for.
	 * @param topic the topic
	 * @param types event types and patterns with {@code *}, or {@code null} for all
	 * @param filter a CEL expression, or {@code null} for none
	 * @param view a JSON pointer into a snapshot topic's document, or {@code null} for
	 * the whole document
	 * @param prefix what precedes the names {@code types}, {@code filter} and
	 * {@code pointer} where the request has them: {@code ""} for query parameters, a JSON
	 * pointer to the object holding them otherwise ({@code /})
	 * @return the selection
	 * @throws StreamgateException (400) for a bad type pattern, filter or pointer, types
	 * or a filter on a snapshot topic, a view on an event topic
	 */
	public static Selection selection(Topic topic, List<String> types, String filter, String view, String prefix) {
		Selection selection = Selection.of(types, filter, prefix + "types", prefix + "filter");
		if (!selection.selectsAll() && topic.payloadType() == PayloadType.SNAPSHOT) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					"Topic '" + topic.id()
							+ "' is a snapshot topic: its patches build one document and cannot be selected by type or "
							+ "filter; a pointer shows one part of it")
				.withErrors(List.of(new StreamgateException.FieldError(prefix + ((types != null) ? "types" : "filter"),
						"types and filters select the events of event topics")));
		}
		if (view == null) {
			return selection;
		}
		if (topic.payloadType() != PayloadType.SNAPSHOT) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					"Topic '" + topic.id()
							+ "' is an event topic: a pointer shows one part of a snapshot topic's document")
				.withErrors(List.of(new StreamgateException.FieldError(prefix + "pointer",
						"views are of the documents of snapshot topics")));
		}
		return selection.withView(DocumentView.of(view, prefix + "pointer"));
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
