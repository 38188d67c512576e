package dev.streamgate.core.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

import reactor.core.publisher.Flux;

import dev.streamgate.core.storage.Leases;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.topic.Topic;

/**
 * Runs one worker per topic of a kind that this node owns in a lease group (the poller of
 * an {@code http-poller} topic, the mirror of a {@code kafka} one): started when the
 * topic is created or its lease arrives, stopped when it is deleted, stops being of the
 * kind or its lease goes to another node, and replaced when the topic is created again.
 *
 * @param <W> the worker type
 */
public final class LeasedTopics<W extends LeasedTopics.Worker> {

	private static final Duration RECHECK = Duration.ofSeconds(5);

	private final TopicStore topics;

	private final LeasedWork<StoredTopic, Running<W>> work;

	/**
	 * Workers of one kind of topic.
	 * @param group the lease group
	 * @param topics the topic definitions
	 * @param leases the lease groups
	 * @param kind the topics that get a worker
	 * @param starter starts the worker of a topic this node now owns
	 */
	public LeasedTopics(String group, TopicStore topics, Leases leases, Predicate<Topic> kind,
			Function<StoredTopic, W> starter) {
		this.topics = topics;
		this.work = new LeasedWork<>(group, leases, new LeasedWork.Plan<>() {

			@Override
			public List<StoredTopic> all() {
				return topics.isCaughtUp()
						? topics.list().stream().filter((stored) -> kind.test(stored.topic())).toList() : null;
			}

			@Override
			public String key(StoredTopic stored) {
				return stored.topic().id();
			}

			@Override
			public boolean serves(Running<W> running, StoredTopic stored) {
				return stored.topic().createdAt().equals(running.createdAt());
			}

			@Override
			public Running<W> start(StoredTopic stored) {
				return new Running<>(starter.apply(stored), stored.topic().createdAt());
			}

			@Override
			public void stop(String key, Running<W> running, boolean nodeStopping) {
				running.worker().stop();
			}

		});
	}

	/**
	 * Follows the topic definitions, in the group while there are topics of the kind.
	 */
	public void start() {
		// Definitions change at any time, and each change is announced; the start is not
		// (the registry catches up without one), so a periodic pass covers it, and ends
		// with the first pass that finds the registry caught up: afterwards it would only
		// walk every topic of the node every few seconds to find nothing new.
		this.work.start(Flux.merge(this.topics.changes().map((change) -> 0L),
				Flux.interval(RECHECK).takeUntil((tick) -> this.topics.isCaughtUp())));
	}

	/** Stops every worker and leaves the group. */
	public void stop() {
		this.work.stop();
	}

	/**
	 * Whether this node follows the definitions.
	 * @return true between start and stop
	 */
	public boolean isRunning() {
		return this.work.isRunning();
	}

	/**
	 * The worker of a topic, when this node runs it.
	 * @param topicId the topic id
	 * @return the worker
	 */
	public Optional<W> worker(String topicId) {
		return this.work.worker(topicId).map(Running::worker);
	}

	/**
	 * How many workers this node runs.
	 * @return the count
	 */
	public int size() {
		return this.work.running().size();
	}

	/** What a topic's worker does when its topic is no longer this node's. */
	public interface Worker {

		/** Stops, before returning. */
		void stop();

	}

	/** A worker with the creation time of the topic it serves. */
	private record Running<W>(W worker, Instant createdAt) {
	}

}
