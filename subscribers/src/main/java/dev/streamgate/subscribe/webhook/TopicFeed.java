package dev.streamgate.subscribe.webhook;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import reactor.core.publisher.Mono;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.filter.FilterVariables;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.subscribe.follow.TopicFollower;

/**
 * A topic's events for the webhooks of it on this node: read from the topic's follower,
 * so that webhooks that keep up read from memory, whatever their number; with the last
 * envelope built, shared by the webhooks that deliver the same event.
 */
final class TopicFeed {

	private final TopicFollower follower;

	/** The envelope last built from an event, shared by the webhooks that deliver it. */
	private volatile Envelope lastEnvelope;

	/** What filters saw of the event last looked at, shared by the webhooks' filters. */
	private volatile Variables lastVariables;

	int users;

	TopicFeed(TopicFollower follower) {
		this.follower = follower;
	}

	Topic topic() {
		return this.follower.topic();
	}

	TopicFollower follower() {
		return this.follower;
	}

	/**
	 * The next events after a cursor, in order on each partition; waits while there are
	 * none.
	 * @param after the cursor of the last event handled
	 * @param max how many events at most
	 * @return the events, or an empty list when it is time to look again
	 */
	Mono<List<Event>> next(Cursor after, int max) {
		return this.follower.next(after, max);
	}

	/**
	 * The envelope of an event, built once for all the webhooks that deliver the same
	 * event under the same cursor and type.
	 * @param event the event, as this feed handed it out
	 * @param type the delivery type
	 * @param cursor the cursor after the event
	 * @param build builds the envelope when it is not at hand
	 * @return the envelope
	 */
	byte[] envelope(Event event, String type, String cursor, Supplier<byte[]> build) {
		Envelope cached = this.lastEnvelope;
		if (cached != null && cached.event() == event && cached.type().equals(type) && cached.cursor().equals(cursor)) {
			return cached.body();
		}
		byte[] body = build.get();
		this.lastEnvelope = new Envelope(event, type, cursor, body);
		return body;
	}

	/**
	 * What webhooks' filters see of an event, made once for the webhooks that look at the
	 * same event one after the other.
	 * @param event the event, as this feed handed it out
	 * @return the variables
	 */
	Map<String, Object> filterVariables(Event event) {
		Variables cached = this.lastVariables;
		if (cached != null && cached.event() == event) {
			return cached.variables();
		}
		Map<String, Object> variables = FilterVariables.of(topic().id(), event);
		this.lastVariables = new Variables(event, variables);
		return variables;
	}

	private record Variables(Event event, Map<String, Object> variables) {
	}

	private record Envelope(Event event, String type, String cursor, byte[] body) {
	}

}
