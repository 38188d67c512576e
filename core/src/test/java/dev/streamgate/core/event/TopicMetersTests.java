package dev.streamgate.core.event;

import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TopicMetersTests {

	private final MeterRegistry registry = new SimpleMeterRegistry();

	@Test
	void forgettingATopicRemovesItsMetersAndNoOther() {
		TopicMeters topicMeters = new TopicMeters(this.registry);
		counter("published", "a");
		gauge("clients", "a");
		counter("published", "b");
		Counter untagged = Counter.builder("requests").register(this.registry);

		topicMeters.forget("a");

		assertThat(this.registry.getMeters()).extracting((meter) -> meter.getId().getTag("topic"))
			.containsExactlyInAnyOrder("b", null);
		assertThat(this.registry.getMeters()).contains(untagged);
		assertThat(topicMeters.count("a")).isZero();
		assertThat(topicMeters.count("b")).isOne();
	}

	@Test
	void metersRegisteredBeforeTheIndexWasMadeAreForgottenToo() {
		counter("published", "early");
		TopicMeters topicMeters = new TopicMeters(this.registry);
		counter("delivered", "early");
		assertThat(topicMeters.count("early")).isEqualTo(2);

		topicMeters.forget("early");

		assertThat(this.registry.getMeters()).isEmpty();
	}

	@Test
	void aMeterRemovedElsewhereLeavesTheIndex() {
		TopicMeters topicMeters = new TopicMeters(this.registry);
		Meter published = counter("published", "a");
		counter("delivered", "a");

		this.registry.remove(published);

		assertThat(topicMeters.count("a")).isOne();
		topicMeters.forget("a");
		assertThat(this.registry.getMeters()).isEmpty();
		topicMeters.forget("never-metered");
		assertThat(topicMeters.count("never-metered")).isZero();
	}

	@Test
	void aTopicMeteredAgainAfterItWasForgottenIsForgottenAgain() {
		TopicMeters topicMeters = new TopicMeters(this.registry);
		counter("published", "again");
		topicMeters.forget("again");
		counter("published", "again");

		assertThat(topicMeters.count("again")).isOne();
		topicMeters.forget("again");
		assertThat(this.registry.getMeters()).isEmpty();
	}

	private Counter counter(String name, String topicId) {
		return Counter.builder(name).tag(TopicMeters.TAG, topicId).register(this.registry);
	}

	private void gauge(String name, String topicId) {
		Gauge.builder(name, new AtomicInteger(), AtomicInteger::get)
			.tag(TopicMeters.TAG, topicId)
			.register(this.registry);
	}

}
