package dev.streamgate.publish.mirror;

import java.time.Clock;
import java.util.Optional;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.SmartLifecycle;

import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.lease.LeasedTopics;
import dev.streamgate.core.storage.Leases;
import dev.streamgate.core.storage.Mirroring;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.PollerStatus;
import dev.streamgate.core.topic.Publisher;

/**
 * Runs the mirrors of the {@code kafka} topics this node owns in the {@code mirrors}
 * lease group, one per topic, the way {@code Pollers} runs pollers.
 */
public class Mirrors implements SmartLifecycle, PollerStatus {

	private final LeasedTopics<Mirror> mirrors;

	Mirrors(TopicStore topics, Leases leases, Mirroring mirroring, EventPublisher publisher, MeterRegistry meters) {
		this.mirrors = new LeasedTopics<>("mirrors", topics, leases,
				(topic) -> topic.publisher() instanceof Publisher.Kafka, (stored) -> {
					Mirror mirror = new Mirror(stored.topic().id(), topics, mirroring, publisher, meters,
							Clock.systemUTC());
					mirror.start();
					return mirror;
				});
		Gauge.builder("streamgate.mirror.active", this.mirrors, LeasedTopics::size)
			.description("Topics this node mirrors from Kafka")
			.register(meters);
	}

	@Override
	public void start() {
		this.mirrors.start();
	}

	@Override
	public void stop() {
		this.mirrors.stop();
	}

	@Override
	public boolean isRunning() {
		return this.mirrors.isRunning();
	}

	@Override
	public Optional<LastPoll> lastPoll(String topicId) {
		return this.mirrors.worker(topicId).map(Mirror::lastPoll);
	}

}
