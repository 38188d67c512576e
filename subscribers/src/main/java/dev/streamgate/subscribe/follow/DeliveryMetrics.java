package dev.streamgate.subscribe.follow;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import dev.streamgate.core.event.TopicMeters;

/**
 * What a streaming channel records of each event it writes: the latency from publication
 * ({@code streamgate.delivery.latency{channel}}) and a count per topic
 * ({@code streamgate.events.delivered{channel, topic}}).
 */
public final class DeliveryMetrics {

	private final String channel;

	private final MeterRegistry meters;

	private final Timer latency;

	public DeliveryMetrics(String channel, MeterRegistry meters) {
		this.channel = channel;
		this.meters = meters;
		this.latency = Timer.builder("streamgate.delivery.latency")
			.description("From publication (the Kafka record time) to the write to a subscriber")
			.tag("channel", channel)
			.publishPercentileHistogram()
			.minimumExpectedValue(Duration.ofMillis(1))
			.maximumExpectedValue(Duration.ofSeconds(30))
			.register(meters);
	}

	/**
	 * The count of events written for one topic; a new builder each time, because
	 * Micrometer's builders are mutable and one shared across requests would race.
	 * @param topicId the topic
	 * @return the counter
	 */
	public Counter delivered(String topicId) {
		return Counter.builder("streamgate.events.delivered")
			.description("Events written to subscribers")
			.tag("channel", this.channel)
			.tag(TopicMeters.TAG, topicId)
			.register(this.meters);
	}

	/**
	 * Records one event written now.
	 * @param publishedAt when it was published, epoch milliseconds
	 */
	public void written(long publishedAt) {
		this.latency.record(Math.max(0, System.currentTimeMillis() - publishedAt), TimeUnit.MILLISECONDS);
	}

}
