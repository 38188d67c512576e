package dev.streamgate.core.event;

/**
 * Another node became a topic's only writer since this node last claimed it: what this
 * node was about to append was not written, and it must claim the topic again and catch
 * up with the log before it writes.
 */
public class WriterFencedException extends RuntimeException {

	/**
	 * The exception.
	 * @param topicId the topic
	 * @param cause what the log reported
	 */
	public WriterFencedException(String topicId, Throwable cause) {
		super("Another node writes topic '" + topicId + "' now", cause);
	}

}
