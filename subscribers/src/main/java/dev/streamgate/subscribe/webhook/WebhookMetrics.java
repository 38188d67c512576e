package dev.streamgate.subscribe.webhook;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import dev.streamgate.core.event.TopicMeters;
import dev.streamgate.core.storage.WebhookStore;

/**
 * The webhook metrics: attempts by outcome, delivery latency from publication to the 2xx
 * answer, deliveries waiting to be retried, disabled webhooks.
 */
final class WebhookMetrics {

	private final MeterRegistry meters;

	private final AtomicInteger retriesPending = new AtomicInteger();

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	private final Map<String, Timer> timers = new ConcurrentHashMap<>();

	WebhookMetrics(MeterRegistry meters, WebhookStore webhooks) {
		this.meters = meters;
		Gauge.builder("streamgate.webhook.retries.pending", this.retriesPending, AtomicInteger::get)
			.description("Deliveries waiting for their next attempt on this node")
			.register(meters);
		Gauge
			.builder("streamgate.webhook.disabled", webhooks,
					(store) -> store.list().stream().filter((webhook) -> !webhook.isActive()).count())
			.description("Disabled webhooks")
			.register(meters);
	}

	void attempt(String topicId, String outcome) {
		this.counters
			.computeIfAbsent(topicId + " " + outcome,
					(key) -> Counter.builder("streamgate.webhook.deliveries")
						.description("Delivery attempts by outcome: delivered, retrying, failed (given up), disabled")
						.tags(TopicMeters.TAG, topicId, "outcome", outcome)
						.register(this.meters))
			.increment();
	}

	void delivered(String topicId, Duration latency) {
		this.timers
			.computeIfAbsent(topicId,
					(key) -> Timer.builder("streamgate.webhook.delivery.latency")
						.description("From the event's publication to the endpoint's 2xx answer")
						.tags(TopicMeters.TAG, topicId)
						.publishPercentileHistogram()
						.register(this.meters))
			.record(latency);
	}

	void retryWaiting() {
		this.retriesPending.incrementAndGet();
	}

	void retryDone() {
		this.retriesPending.decrementAndGet();
	}

	void active(Map<String, ?> running) {
		Gauge.builder("streamgate.webhook.active", running, Map::size)
			.description("Webhooks this node delivers")
			.register(this.meters);
	}

}
