package dev.streamgate.core.storage;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.topic.Topic;

/**
 * New events of the topics this node follows, read by one consumer per node whatever the
 * number of followers.
 */
public interface EventTail {

	/**
	 * Follows a topic from its current end.
	 * @param topic the topic
	 * @param listener called first once with the starting position, then with each new
	 * event, in order on each partition, never twice at once: from the tail's thread, or
	 * for an event this node wrote from the thread that received Kafka's acknowledgement
	 * @return stops following when closed; the tail may hear of the stop later, on its
	 * own thread, and until then an event may still reach the listener
	 */
	AutoCloseable follow(Topic topic, Listener listener);

	/**
	 * What the tail is doing, for a log line when a follower waits too long.
	 * @return a description
	 */
	default String describe() {
		return toString();
	}

	/**
	 * Receives a followed topic's events.
	 */
	interface Listener {

		/**
		 * Following starts here: the events after this cursor follow.
		 * @param position the cursor of the last event before following started
		 */
		void onStart(Cursor position);

		/**
		 * A new event.
		 * @param event the event
		 */
		void onEvent(Event event);

	}

}
