package dev.streamgate.subscribe.follow;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.MemoryBudget;
import dev.streamgate.core.event.SnapshotDocuments;
import dev.streamgate.core.event.TopicMeters;
import dev.streamgate.core.problem.ProblemJson;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.storage.EventLog;
import dev.streamgate.core.storage.EventTail;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.SubscriberCounts;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.trace.EventTracing;

/**
 * The topics this node follows: one {@link TopicFollower} per topic, made for its first
 * reader (a stream of any channel, a webhook dispatcher) and closed a while after the
 * last one left. Ends the subscriptions of a deleted topic with a {@code problem}, and
 * all subscriptions when the node shuts down, so that subscribers reconnect elsewhere
 * with their cursor.
 */
public final class TopicFollowers implements SmartLifecycle {

	private final EventLog log;

	private final EventTracing tracing;

	private final EventTail tail;

	private final SnapshotDocuments documents;

	private final FollowProperties properties;

	private final MemoryBudget budget;

	private final MeterRegistry meters;

	private final Map<String, TopicFollower> followers = new ConcurrentHashMap<>();

	private final HeartbeatWheel heartbeats = new HeartbeatWheel();

	private final Map<String, Counter> slowDisconnects = new ConcurrentHashMap<>();

	/** The channels whose subscriptions each topic counts in a gauge. */
	private final Set<String> channels = ConcurrentHashMap.newKeySet();

	private final Map<String, List<Gauge>> gauges = new ConcurrentHashMap<>();

	private final Disposable changes;

	private Disposable reaper;

	private Disposable rechecks;

	private volatile boolean running;

	public TopicFollowers(EventLog log, EventTail tail, SnapshotDocuments documents, TopicStore topics,
			FollowProperties properties, MemoryBudget budget, MeterRegistry meters) {
		this(log, tail, documents, topics, properties, budget, meters, EventTracing.NONE);
	}

	/**
	 * Followers whose events' fan-out is traced.
	 * @param log the events
	 * @param tail the node's event tail
	 * @param documents snapshot topics' documents
	 * @param topics the topics
	 * @param properties what a follower keeps
	 * @param budget the memory all followers' recent events share
	 * @param meters the meters
	 * @param tracing the tracing of events
	 */
	public TopicFollowers(EventLog log, EventTail tail, SnapshotDocuments documents, TopicStore topics,
			FollowProperties properties, MemoryBudget budget, MeterRegistry meters, EventTracing tracing) {
		this.tracing = tracing;
		this.log = log;
		this.tail = tail;
		this.documents = documents;
		this.properties = properties;
		this.budget = budget;
		this.meters = meters;
		this.changes = topics.changes().subscribe((change) -> {
			TopicFollower follower = this.followers.get(change.id());
			if (follower != null && (change.isDeletion() || !sameStorage(follower.topic(), change.topic().topic()))) {
				end(follower, change.isDeletion() ? ProblemType.TOPIC_DELETED : null);
			}
		});
	}

	/**
	 * The follower of a topic, made and started for its first reader; each call must be
	 * paired with a {@link #release}.
	 * @param topic the topic
	 * @return its follower
	 */
	public TopicFollower acquire(Topic topic) {
		while (true) {
			TopicFollower follower = this.followers.computeIfAbsent(topic.id(), (id) -> start(topic));
			if (follower.failed() || !sameStorage(follower.topic(), topic)) {
				end(follower, null);
				continue;
			}
			synchronized (this) {
				// Not ended in between: a reaped follower is no longer in the map.
				if (this.followers.get(topic.id()) == follower) {
					follower.used(1);
					return follower;
				}
			}
		}
	}

	/**
	 * A reader is done with a follower.
	 * @param follower what {@link #acquire} returned
	 */
	public synchronized void release(TopicFollower follower) {
		follower.used(-1);
	}

	/**
	 * Counts the subscriptions of one channel cut off for not keeping up.
	 * @param channel the channel
	 * @return the counter
	 */
	private Counter slowDisconnects(String channel) {
		return this.slowDisconnects.computeIfAbsent(channel,
				(name) -> Counter.builder("streamgate." + name + ".disconnects")
					.description("Streams cut off because the client did not keep up")
					.tag("reason", "slow")
					.register(this.meters));
	}

	/**
	 * Counts a channel's subscriptions: a gauge per topic,
	 * {@code streamgate.<channel>.clients}, and {@code streamgate.<channel>.disconnects}
	 * for the slow ones cut off.
	 * @param channel the channel
	 * @return the counts, for the topic status
	 */
	public SubscriberCounts countSubscriptions(String channel) {
		this.channels.add(channel);
		slowDisconnects(channel);
		return new SubscriberCounts() {

			@Override
			public String channel() {
				return channel;
			}

			@Override
			public int connected(String topicId) {
				return count(channel, topicId);
			}

		};
	}

	/**
	 * Open subscriptions of a topic on one channel.
	 * @param channel the channel
	 * @param topicId the topic
	 * @return how many
	 */
	public int count(String channel, String topicId) {
		TopicFollower follower = this.followers.get(topicId);
		return (follower != null) ? follower.count(channel) : 0;
	}

	private TopicFollower start(Topic topic) {
		TopicFollower follower = new TopicFollower(topic, this.log, this.documents, this.properties, this.budget,
				(channel) -> slowDisconnects(channel).increment(), this.tracing, this.heartbeats);
		this.gauges.put(topic.id(), this.channels.stream()
			.map((channel) -> Gauge.builder("streamgate." + channel + ".clients", follower, (f) -> f.count(channel))
				.description("Open " + channel + " subscriptions")
				.tag(TopicMeters.TAG, topic.id())
				.register(this.meters))
			.toList());
		follower.start(this.tail);
		return follower;
	}

	private static boolean sameStorage(Topic a, Topic b) {
		return a.partitions().equals(b.partitions()) && a.payloadType() == b.payloadType()
				&& a.incarnation().equals(b.incarnation()) && a.storage() == b.storage();
	}

	/**
	 * Ends a follower and its subscriptions, with a last {@code problem} event that says
	 * why when there is one to say.
	 * @param follower the follower
	 * @param why {@code TOPIC_DELETED}, {@code SHUTTING_DOWN}, or {@code null} for no
	 * event
	 */
	private synchronized void end(TopicFollower follower, ProblemType why) {
		String id = follower.topic().id();
		if (!this.followers.remove(id, follower)) {
			return;
		}
		Followed last = null;
		if (why == ProblemType.TOPIC_DELETED) {
			last = Followed.note(id, null, EventType.PROBLEM,
					ProblemJson.bytes(why, "Topic '" + id + "' was deleted", null));
		}
		else if (why == ProblemType.SHUTTING_DOWN) {
			last = Followed.note(id, null, EventType.PROBLEM,
					ProblemJson.bytes(why, "This node is shutting down; reconnect now with your last event id", null));
		}
		follower.end(last);
		follower.close();
		// By the meter itself: a search by tag walks every meter of the registry, and a
		// node ending 10,000 topics (at shutdown) spent minutes in it.
		List<Gauge> topicGauges = this.gauges.remove(id);
		if (topicGauges != null) {
			topicGauges.forEach(this.meters::remove);
		}
	}

	private void reapIdle() {
		Instant now = Instant.now();
		this.followers.values().forEach((follower) -> {
			Instant idleSince = follower.idleSince();
			if (idleSince != null && idleSince.plus(this.properties.linger()).isBefore(now)) {
				synchronized (this) {
					if (follower.users == 0) {
						end(follower, null);
					}
				}
			}
		});
	}

	@Override
	public void start() {
		this.running = true;
		this.reaper = Flux.interval(this.properties.linger(), Schedulers.parallel())
			.onBackpressureDrop()
			.subscribe((tick) -> reapIdle());
		this.rechecks = Flux.interval(TopicFollower.RECHECK, Schedulers.parallel())
			.onBackpressureDrop()
			.subscribe((tick) -> this.followers.values().forEach(TopicFollower::recheck));
	}

	/**
	 * Offers every subscription a heartbeat once per interval. The subscriptions are
	 * spread over {@link HeartbeatWheel#SLICES} slices of the interval, one slice at a
	 * time: all of a node's streams written in the same instant held the event loops for
	 * as long as 10,000 writes take (a stall of events every interval).
	 * @param every the interval
	 * @return stops the heartbeats
	 */
	public Disposable heartbeats(Duration every) {
		Duration slice = every.dividedBy(HeartbeatWheel.SLICES);
		return Flux.interval(slice.isZero() ? Duration.ofMillis(1) : slice, Schedulers.parallel())
			.onBackpressureDrop()
			.subscribe((tick) -> this.heartbeats.beat((int) (tick % HeartbeatWheel.SLICES)));
	}

	@Override
	public void stop() {
		this.running = false;
		this.reaper.dispose();
		this.rechecks.dispose();
		this.changes.dispose();
		// Subscribers learn why their stream ends, and reconnect to another node at once.
		this.followers.values().forEach((follower) -> end(follower, ProblemType.SHUTTING_DOWN));
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
