package dev.streamgate.storage.kafka;

import org.apache.kafka.clients.producer.Producer;

/**
 * Reads a producer's own metrics in tests; here, inside the Kafka boundary, as every use
 * of Kafka's types must be.
 */
final class ProducerMetrics {

	private ProducerMetrics() {
	}

	/**
	 * A producer's own count or average, as its {@code producer-metrics} group names it.
	 * @param producer the producer
	 * @param name the metric's name, such as {@code record-send-total}
	 * @return its value now
	 */
	static double of(Producer<?, ?> producer, String name) {
		return producer.metrics()
			.entrySet()
			.stream()
			.filter((metric) -> metric.getKey().name().equals(name)
					&& metric.getKey().group().equals("producer-metrics"))
			.mapToDouble((metric) -> ((Number) metric.getValue().metricValue()).doubleValue())
			.findFirst()
			.orElseThrow();
	}

}
