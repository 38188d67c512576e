package dev.streamgate.core.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.Disposable;
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

	private static final Log logger = LogFactory.getLog(LeasedTopics.class);

	private static final Duration RECHECK = Duration.ofSeconds(5);

	/** How long a node stays in the group once the last topic of the kind is gone. */
	private static final Duration LINGER = Duration.ofMinutes(1);

	private final String group;

	private final TopicStore topics;

	private final Leases leases;

	private final Predicate<Topic> kind;

	private final Function<StoredTopic, W> starter;

	/** Running workers by topic id, with the creation time of the topic they serve. */
	private final Map<String, Running<W>> running = new ConcurrentHashMap<>();

	private volatile OnDemandMembership membership;

	private Disposable changes;

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
		this.group = group;
		this.topics = topics;
		this.leases = leases;
		this.kind = kind;
		this.starter = starter;
	}

	/**
	 * Follows the topic definitions, in the group while there are topics of the kind.
	 */
	public synchronized void start() {
		this.membership = new OnDemandMembership(this.leases, this.group, this::reconcile, LINGER);
		// Definitions change at any time, and each change is announced; the start is not
		// (the registry catches up without one), so a periodic pass covers it, and ends
		// with the first pass that finds the registry caught up: afterwards it would only
		// walk every topic of the node every few seconds to find nothing new.
		this.changes = Flux
			.merge(this.topics.changes().map((change) -> 0L),
					Flux.interval(RECHECK).takeUntil((tick) -> this.topics.isCaughtUp()))
			.subscribe((tick) -> reconcile(),
					(ex) -> logger.error("The " + this.group + " stopped following topic changes", ex));
	}

	/** Stops every worker and leaves the group. */
	public void stop() {
		OnDemandMembership leaving;
		synchronized (this) {
			if (this.changes != null) {
				this.changes.dispose();
			}
			leaving = this.membership;
			this.membership = null;
			this.running.values().forEach((running) -> running.worker().stop());
			this.running.clear();
		}
		// Outside the lock: leaving may call reconcile() on the group's thread, which
		// needs it.
		if (leaving != null) {
			leaving.close();
		}
	}

	/**
	 * Whether this node follows the definitions.
	 * @return true between start and stop
	 */
	public boolean isRunning() {
		return this.membership != null;
	}

	/**
	 * The worker of a topic, when this node runs it.
	 * @param topicId the topic id
	 * @return the worker
	 */
	public Optional<W> worker(String topicId) {
		return Optional.ofNullable(this.running.get(topicId)).map(Running::worker);
	}

	/**
	 * How many workers this node runs.
	 * @return the count
	 */
	public int size() {
		return this.running.size();
	}

	/**
	 * Starts and stops workers to match the definitions and this node's leases; a worker
	 * is stopped before this returns (a released lease goes to another node only then).
	 */
	private synchronized void reconcile() {
		OnDemandMembership current = this.membership;
		Map<String, StoredTopic> wanted = new HashMap<>();
		if (current != null && this.topics.isCaughtUp()) {
			List<StoredTopic> ofKind = this.topics.list()
				.stream()
				.filter((stored) -> this.kind.test(stored.topic()))
				.toList();
			current.workExists(!ofKind.isEmpty());
			ofKind.stream()
				.filter((stored) -> current.owns(stored.topic().id()))
				.forEach((stored) -> wanted.put(stored.topic().id(), stored));
		}
		this.running.entrySet().removeIf((entry) -> {
			StoredTopic stored = wanted.get(entry.getKey());
			boolean keep = stored != null && stored.topic().createdAt().equals(entry.getValue().createdAt());
			if (!keep) {
				entry.getValue().worker().stop();
			}
			return !keep;
		});
		wanted.forEach((id, stored) -> this.running.computeIfAbsent(id,
				(key) -> new Running<>(this.starter.apply(stored), stored.topic().createdAt())));
		if (logger.isDebugEnabled()) {
			logger.debug(this.group + ": running "
					+ this.running.keySet().stream().sorted().collect(Collectors.joining(", ")));
		}
	}

	/** What a topic's worker does when its topic is no longer this node's. */
	public interface Worker {

		/** Stops, before returning. */
		void stop();

	}

	private record Running<W>(W worker, Instant createdAt) {
	}

}
