package dev.streamgate.subscribe.webhook;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

import dev.streamgate.core.lease.OnDemandMembership;
import dev.streamgate.core.storage.Leases;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.webhook.DeliveryState;
import dev.streamgate.core.webhook.Webhook;

/**
 * Runs the dispatchers of the active webhooks this node owns in the {@code webhooks}
 * lease group: one per webhook, started when it is registered, enabled or its lease
 * arrives; stopped, with its cursor committed, when it is disabled or deleted, its topic
 * goes, or its lease moves to another node. A changed registration (a replay, a new
 * status) restarts its dispatcher.
 */
public class Dispatchers implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(Dispatchers.class);

	private static final Duration RECHECK = Duration.ofSeconds(5);

	/** How long a node stays in the group once the last active webhook is gone. */
	private static final Duration LINGER = Duration.ofMinutes(1);

	private final TopicStore topics;

	private final Leases leases;

	private final TopicFeeds feeds;

	private final Dispatcher.Services services;

	private final Map<String, Dispatcher> running = new ConcurrentHashMap<>();

	/**
	 * Where stopped dispatchers got to: their last commit may not have been read back yet
	 * when the webhook starts again here.
	 */
	private final Map<String, DeliveryState> retired = new HashMap<>();

	/** In the group while there is an active webhook. */
	private volatile OnDemandMembership membership;

	private Disposable changes;

	Dispatchers(TopicStore topics, Leases leases, TopicFeeds feeds, Dispatcher.Services services) {
		this.topics = topics;
		this.leases = leases;
		this.feeds = feeds;
		this.services = services;
		services.metrics().active(this.running);
	}

	@Override
	public synchronized void start() {
		this.services.commits().start();
		this.membership = new OnDemandMembership(this.leases, "webhooks", this::reconcile, LINGER);
		this.changes = Flux
			.merge(this.topics.changes().map((change) -> 0L), this.services.webhooks().changes().map((id) -> 0L),
					Flux.interval(RECHECK))
			.subscribe((tick) -> reconcile(), (ex) -> logger.error("Webhooks stopped following changes", ex));
	}

	@Override
	public void stop() {
		OnDemandMembership leaving;
		synchronized (this) {
			if (this.changes != null) {
				this.changes.dispose();
			}
			leaving = this.membership;
			this.membership = null;
			this.running.values().forEach((dispatcher) -> retire(dispatcher, true));
			this.running.clear();
		}
		// Outside the lock: leaving may call reconcile() on the group's thread.
		if (leaving != null) {
			leaving.close();
		}
		// The states the retired dispatchers reached, before the node's Kafka clients go.
		this.services.commits().stop();
	}

	@Override
	public boolean isRunning() {
		return this.membership != null;
	}

	/** Starts and stops dispatchers to match the registrations and this node's leases. */
	private synchronized void reconcile() {
		OnDemandMembership current = this.membership;
		Map<String, Wanted> wanted = new HashMap<>();
		// A dispatcher resumes from its webhook's committed state: none starts before
		// this node has read them all.
		if (current != null && this.topics.isCaughtUp() && this.services.webhooks().isCaughtUp()
				&& this.services.states().isCaughtUp()) {
			List<Wanted> active = new ArrayList<>();
			for (Webhook webhook : this.services.webhooks().list()) {
				StoredTopic topic = this.topics.get(webhook.topicId()).orElse(null);
				if (webhook.isActive() && topic != null) {
					active.add(new Wanted(webhook, topic));
				}
			}
			current.workExists(!active.isEmpty());
			active.stream()
				.filter((want) -> current.owns(want.webhook().id()))
				.forEach((want) -> wanted.put(want.webhook().id(), want));
		}
		this.running.entrySet().removeIf((entry) -> {
			Dispatcher dispatcher = entry.getValue();
			Wanted want = wanted.get(entry.getKey());
			boolean keep = want != null && want.webhook().equals(dispatcher.webhook())
					&& want.topic().topic().equals(dispatcher.feed().topic());
			if (!keep) {
				boolean exists = this.services.webhooks().get(entry.getKey()).isPresent();
				DeliveryState reached = retire(dispatcher, exists);
				if (exists) {
					this.retired.put(entry.getKey(), reached);
				}
			}
			return !keep;
		});
		this.retired.keySet().removeIf((id) -> this.services.webhooks().get(id).isEmpty());
		wanted.forEach((id, want) -> this.running.computeIfAbsent(id, (key) -> {
			DeliveryState state = newest(this.services.states().current(want.webhook()), this.retired.remove(id));
			Dispatcher dispatcher = new Dispatcher(want.webhook(), want.topic().topic(), state,
					this.feeds.acquire(want.topic().topic()), this.services);
			dispatcher.start();
			return dispatcher;
		}));
	}

	/**
	 * The further of the committed state and the one this node stopped at: within an
	 * epoch, the counts of handled events only grow.
	 */
	private static DeliveryState newest(DeliveryState committed, DeliveryState local) {
		if (local == null || local.epoch() != committed.epoch()) {
			return committed;
		}
		return (local.delivered() + local.failed() > committed.delivered() + committed.failed()) ? local : committed;
	}

	private DeliveryState retire(Dispatcher dispatcher, boolean commit) {
		DeliveryState reached = dispatcher.stop(commit);
		this.feeds.release(dispatcher.feed());
		return reached;
	}

	private record Wanted(Webhook webhook, StoredTopic topic) {
	}

}
