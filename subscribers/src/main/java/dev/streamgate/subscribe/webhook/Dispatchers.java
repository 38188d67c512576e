package dev.streamgate.subscribe.webhook;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.context.SmartLifecycle;
import reactor.core.publisher.Flux;

import dev.streamgate.core.lease.LeasedWork;
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

	private static final Duration RECHECK = Duration.ofSeconds(5);

	private final TopicStore topics;

	private final TopicFeeds feeds;

	private final Dispatcher.Services services;

	private final LeasedWork<Wanted, Dispatcher> work;

	/**
	 * Where stopped dispatchers got to: their last commit may not have been read back yet
	 * when the webhook starts again here.
	 */
	private final Map<String, DeliveryState> retired = new HashMap<>();

	Dispatchers(TopicStore topics, Leases leases, TopicFeeds feeds, Dispatcher.Services services) {
		this.topics = topics;
		this.feeds = feeds;
		this.services = services;
		this.work = new LeasedWork<>("webhooks", leases, new Plan());
		services.metrics().active(this.work.running());
	}

	@Override
	public void start() {
		this.services.commits().start();
		this.work.start(Flux.merge(this.topics.changes().map((change) -> 0L),
				this.services.webhooks().changes().map((id) -> 0L), Flux.interval(RECHECK)));
	}

	@Override
	public void stop() {
		this.work.stop();
		// The states the retired dispatchers reached, before the node's Kafka clients go.
		this.services.commits().stop();
	}

	@Override
	public boolean isRunning() {
		return this.work.isRunning();
	}

	/** Which dispatchers run: the webhooks' plan in the lease group. */
	private final class Plan implements LeasedWork.Plan<Wanted, Dispatcher> {

		/**
		 * The active webhooks with their topics: none until this node has read every
		 * registration and committed state, as a dispatcher resumes from its webhook's.
		 */
		@Override
		public List<Wanted> all() {
			if (!Dispatchers.this.topics.isCaughtUp() || !Dispatchers.this.services.webhooks().isCaughtUp()
					|| !Dispatchers.this.services.states().isCaughtUp()) {
				return null;
			}
			List<Wanted> active = new ArrayList<>();
			for (Webhook webhook : Dispatchers.this.services.webhooks().list()) {
				StoredTopic topic = Dispatchers.this.topics.get(webhook.topicId()).orElse(null);
				if (webhook.isActive() && topic != null) {
					active.add(new Wanted(webhook, topic));
				}
			}
			return active;
		}

		@Override
		public String key(Wanted want) {
			return want.webhook().id();
		}

		@Override
		public boolean serves(Dispatcher dispatcher, Wanted want) {
			return want.webhook().equals(dispatcher.webhook())
					&& want.topic().topic().equals(dispatcher.feed().topic());
		}

		@Override
		public Dispatcher start(Wanted want) {
			String id = want.webhook().id();
			DeliveryState state = newest(Dispatchers.this.services.states().current(want.webhook()),
					Dispatchers.this.retired.remove(id));
			Dispatcher dispatcher = new Dispatcher(want.webhook(), want.topic().topic(), state,
					Dispatchers.this.feeds.acquire(want.topic().topic()), Dispatchers.this.services);
			dispatcher.start();
			return dispatcher;
		}

		@Override
		public void stop(String id, Dispatcher dispatcher, boolean nodeStopping) {
			if (nodeStopping) {
				retire(dispatcher, true);
				return;
			}
			boolean exists = Dispatchers.this.services.webhooks().get(id).isPresent();
			DeliveryState reached = retire(dispatcher, exists);
			if (exists) {
				Dispatchers.this.retired.put(id, reached);
			}
		}

		@Override
		public void stopped() {
			Dispatchers.this.retired.keySet().removeIf((id) -> Dispatchers.this.services.webhooks().get(id).isEmpty());
		}

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

	/** An active webhook with its topic. */
	private record Wanted(Webhook webhook, StoredTopic topic) {
	}

}
