package dev.streamgate.subscribe.follow;

/**
 * Ends a subscription whose connection did not keep up: its queue filled. The subscriber
 * resumes with its cursor.
 */
public class SlowSubscriberException extends RuntimeException {

	SlowSubscriberException() {
		super("The subscriber did not keep up: its queue is full", null, false, false);
	}

}
