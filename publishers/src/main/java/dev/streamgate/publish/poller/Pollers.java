package dev.streamgate.publish.poller;

import java.time.Clock;
import java.util.Optional;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.SmartLifecycle;

import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.lease.LeasedTopics;
import dev.streamgate.core.storage.Leases;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.PollerStatus;
import dev.streamgate.core.topic.Publisher;
import dev.streamgate.core.trace.EventTracing;

/**
 * Runs the pollers of the {@code http-poller} topics this node owns in the
 * {@code pollers} lease group: one poller per owned topic, started when the topic is
 * created or its lease arrives, stopped when it is deleted, stops being a poller topic or
 * its lease goes to another node.
 */
public class Pollers implements SmartLifecycle, PollerStatus {

	private final LeasedTopics<Running> pollers;

	Pollers(TopicStore topics, Leases leases, SourceClient client, EventPublisher publisher, MeterRegistry meters,
			EventTracing tracing) {
		this.pollers = new LeasedTopics<>("pollers", topics, leases,
				(topic) -> topic.publisher() instanceof Publisher.HttpPoller, (stored) -> {
					String id = stored.topic().id();
					// Another node may have polled it since this one last did: its
					// document
					// is loaded from the log again, then kept while this node is its only
					// writer.
					publisher.forget(id);
					Poller poller = new Poller(id, topics, client, publisher, meters, Clock.systemUTC(), tracing);
					poller.start();
					return new Running(poller, () -> publisher.forget(id));
				});
		Gauge.builder("streamgate.poller.active", this.pollers, LeasedTopics::size)
			.description("Topics this node polls")
			.register(meters);
	}

	@Override
	public void start() {
		this.pollers.start();
	}

	@Override
	public void stop() {
		this.pollers.stop();
	}

	@Override
	public boolean isRunning() {
		return this.pollers.isRunning();
	}

	@Override
	public Optional<LastPoll> lastPoll(String topicId) {
		return this.pollers.worker(topicId).map((running) -> running.poller().lastPoll());
	}

	/** A running poller, and what to forget of its topic once it stops. */
	private record Running(Poller poller, Runnable forget) implements LeasedTopics.Worker {

		@Override
		public void stop() {
			this.poller.stop();
			this.forget.run();
		}

	}

}
