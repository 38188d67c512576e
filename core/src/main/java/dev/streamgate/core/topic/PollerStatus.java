package dev.streamgate.core.topic;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What the poller of a topic last did, when this node polls it, for the topic status.
 */
public interface PollerStatus {

	/**
	 * The last poll of a topic by this node.
	 * @param topicId the topic id
	 * @return the last poll, or empty when this node does not poll the topic
	 */
	Optional<LastPoll> lastPoll(String topicId);

	/**
	 * One finished poll.
	 *
	 * @param at when it started
	 * @param outcome {@code changed}, {@code unchanged}, {@code not-modified} or
	 * {@code failed}
	 * @param duration how long it took, retries included
	 * @param detail what failed, for a failed poll
	 */
	record LastPoll(Instant at, String outcome, Duration duration, String detail) {
	}

}
