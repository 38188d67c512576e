package dev.streamgate.publish.poller;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.lease.Leases;
import dev.streamgate.core.topic.PollerStatus;
import dev.streamgate.core.topic.PublisherType;
import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.topic.TopicStore;

/**
 * Runs the pollers of the {@code http-poller} topics this node owns in the
 * {@code pollers} lease group: one poller per owned topic, started when the topic is
 * created or its lease arrives, stopped when it is deleted, stops being a poller topic or
 * its lease goes to another node.
 */
public class Pollers implements SmartLifecycle, PollerStatus {

	private static final Log logger = LogFactory.getLog(Pollers.class);

	private static final Duration RECHECK = Duration.ofSeconds(5);

	private final TopicStore topics;

	private final Leases leases;

	private final SourceClient client;

	private final EventPublisher publisher;

	private final MeterRegistry meters;

	/** Running pollers by topic id, with the creation time of the topic they poll. */
	private final Map<String, Running> running = new ConcurrentHashMap<>();

	private volatile Leases.Membership membership;

	private Disposable changes;

	Pollers(TopicStore topics, Leases leases, SourceClient client, EventPublisher publisher, MeterRegistry meters) {
		this.topics = topics;
		this.leases = leases;
		this.client = client;
		this.publisher = publisher;
		this.meters = meters;
		Gauge.builder("streamgate.poller.active", this.running, Map::size)
			.description("Topics this node polls")
			.register(meters);
	}

	@Override
	public synchronized void start() {
		this.membership = this.leases.join("pollers", this::reconcile);
		// Definitions change at any time; the periodic pass also covers the start, while
		// the registry is still catching up.
		this.changes = Flux.merge(this.topics.changes().map((change) -> 0L), Flux.interval(RECHECK))
			.subscribe((tick) -> reconcile(), (ex) -> logger.error("Pollers stopped following topic changes", ex));
	}

	@Override
	public void stop() {
		Leases.Membership leaving;
		synchronized (this) {
			if (this.changes != null) {
				this.changes.dispose();
			}
			leaving = this.membership;
			this.membership = null;
			this.running.values().forEach((poller) -> poller.poller().stop());
			this.running.clear();
		}
		// Outside the lock: leaving may call reconcile() on the group's thread, which
		// needs it.
		if (leaving != null) {
			leaving.close();
		}
	}

	@Override
	public boolean isRunning() {
		return this.membership != null;
	}

	@Override
	public Optional<LastPoll> lastPoll(String topicId) {
		return Optional.ofNullable(this.running.get(topicId)).map((poller) -> poller.poller().lastPoll());
	}

	/** Starts and stops pollers to match the definitions and this node's leases. */
	private synchronized void reconcile() {
		Leases.Membership current = this.membership;
		Map<String, StoredTopic> wanted = new HashMap<>();
		if (current != null && this.topics.isCaughtUp()) {
			this.topics.list()
				.stream()
				.filter((stored) -> stored.topic().publisher().type() == PublisherType.HTTP_POLLER)
				.filter((stored) -> current.owns(stored.topic().id()))
				.forEach((stored) -> wanted.put(stored.topic().id(), stored));
		}
		this.running.entrySet().removeIf((entry) -> {
			StoredTopic stored = wanted.get(entry.getKey());
			boolean keep = stored != null && stored.topic().createdAt().equals(entry.getValue().createdAt());
			if (!keep) {
				entry.getValue().poller().stop();
				this.publisher.forget(entry.getKey());
			}
			return !keep;
		});
		wanted.forEach((id, stored) -> this.running.computeIfAbsent(id, (key) -> {
			// Another node may have polled it since this one last did: its document is
			// loaded from the log again, then kept while this node is its only writer.
			this.publisher.forget(id);
			Poller poller = new Poller(id, this.topics, this.client, this.publisher, this.meters, Clock.systemUTC());
			poller.start();
			return new Running(poller, stored.topic().createdAt());
		}));
		if (logger.isDebugEnabled()) {
			logger.debug("Polling " + this.running.keySet().stream().sorted().collect(Collectors.joining(", ")));
		}
	}

	private record Running(Poller poller, java.time.Instant createdAt) {
	}

}
