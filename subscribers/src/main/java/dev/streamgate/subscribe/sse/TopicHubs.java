package dev.streamgate.subscribe.sse;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import dev.streamgate.core.event.EventLog;
import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.event.EventTail;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.MemoryBudget;
import dev.streamgate.core.problem.ProblemJson;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.topic.SubscriberCounts;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.topic.TopicStore;

/**
 * The topic hubs of this node: one per topic with open streams, created by the first
 * subscriber and closed a while after the last one leaves. Ends the streams of a deleted
 * topic with a {@code problem} event, and all streams when the node shuts down, so that
 * clients reconnect elsewhere with their cursor.
 */
final class TopicHubs implements SmartLifecycle, SubscriberCounts {

	private static final Duration LINGER = Duration.ofSeconds(30);

	private final EventLog log;

	private final EventTail tail;

	private final EventPublisher documents;

	private final SseProperties properties;

	private final MeterRegistry meters;

	private final Map<String, TopicHub> hubs = new ConcurrentHashMap<>();

	private final Map<String, Gauge> clientGauges = new ConcurrentHashMap<>();

	private final Counter slowDisconnects;

	private Disposable heartbeats;

	private Disposable deletions;

	private Disposable reaper;

	private volatile boolean running;

	private final MemoryBudget budget;

	TopicHubs(EventLog log, EventTail tail, EventPublisher documents, TopicStore topics, SseProperties properties,
			MemoryBudget budget, MeterRegistry meters) {
		this.budget = budget;
		this.log = log;
		this.tail = tail;
		this.documents = documents;
		this.properties = properties;
		this.meters = meters;
		this.slowDisconnects = Counter.builder("streamgate.sse.disconnects")
			.description("Streams cut off because the client did not keep up")
			.tag("reason", "slow")
			.register(meters);
		this.deletions = topics.changes().subscribe((change) -> {
			TopicHub hub = this.hubs.get(change.id());
			if (hub != null && (change.isDeletion() || !sameStorage(hub.topic(), change.topic().topic()))) {
				endTopic(change.id(), change.isDeletion());
			}
		});
	}

	/**
	 * The hub of a topic, created and started on first use.
	 * @param topic the topic
	 * @return its hub
	 */
	TopicHub hub(Topic topic) {
		TopicHub existing = this.hubs.get(topic.id());
		if (existing != null && existing.failed()) {
			endTopic(topic.id(), false);
		}
		return this.hubs.computeIfAbsent(topic.id(), (id) -> {
			TopicHub hub = new TopicHub(topic, this.log, this.documents, this.properties, this.budget,
					(client) -> this.slowDisconnects.increment());
			this.clientGauges.put(id,
					Gauge.builder("streamgate.sse.clients", hub, TopicHub::clientCount)
						.description("Open SSE streams")
						.tag("topic", id)
						.register(this.meters));
			hub.start(this.tail);
			return hub;
		});
	}

	@Override
	public String channel() {
		return "sse";
	}

	@Override
	public int connected(String topicId) {
		TopicHub hub = this.hubs.get(topicId);
		return (hub != null) ? hub.clientCount() : 0;
	}

	private static boolean sameStorage(Topic a, Topic b) {
		return a.partitions().equals(b.partitions()) && a.payloadType() == b.payloadType()
				&& a.incarnation().equals(b.incarnation()) && a.storage() == b.storage();
	}

	private void endTopic(String id, boolean deleted) {
		TopicHub hub = this.hubs.remove(id);
		if (hub == null) {
			return;
		}
		Frame last = deleted ? Frame.of(null, EventType.PROBLEM,
				ProblemJson.bytes(ProblemType.TOPIC_DELETED, "Topic '" + id + "' was deleted", null), 0) : null;
		hub.end(last);
		hub.close();
		// By the meter itself: a search by tag walks every meter of the registry, and a
		// node
		// ending 10,000 topics (at shutdown) spent minutes in it.
		Gauge clients = this.clientGauges.remove(id);
		if (clients != null) {
			this.meters.remove(clients);
		}
	}

	private void reapIdleHubs() {
		this.hubs.forEach((id, hub) -> {
			if (hub.clientCount() == 0 && hub.idleSince() != null
					&& hub.idleSince().plus(LINGER).isBefore(java.time.Instant.now())) {
				endTopic(id, false);
			}
		});
	}

	@Override
	public void start() {
		this.running = true;
		this.heartbeats = Flux.interval(this.properties.heartbeat(), Schedulers.parallel())
			.onBackpressureDrop()
			.subscribe((tick) -> this.hubs.values().forEach(TopicHub::heartbeat));
		this.reaper = Flux.interval(LINGER, Schedulers.parallel())
			.onBackpressureDrop()
			.subscribe((tick) -> reapIdleHubs());
	}

	@Override
	public void stop() {
		this.running = false;
		this.heartbeats.dispose();
		this.reaper.dispose();
		this.deletions.dispose();
		this.hubs.keySet().forEach((id) -> endTopic(id, false));
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
