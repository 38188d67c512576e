package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.BinaryOperator;
import java.util.function.Function;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A compacted topic of JSON values by key, read into memory on every node: the shared
 * part of the webhook registrations and the delivery states.
 *
 * @param <T> the value type
 */
final class KafkaKeyedView<T> implements AutoCloseable {

	private final KafkaConfigLog log;

	private final Function<byte[], T> decoder;

	private final BinaryOperator<T> merge;

	private final ConcurrentSkipListMap<String, T> values = new ConcurrentSkipListMap<>();

	private final Sinks.Many<String> changes = Sinks.many().multicast().directBestEffort();

	/**
	 * A view of one topic.
	 * @param topic the Kafka topic
	 * @param clients the clients
	 * @param writer the writer of records
	 * @param decoder reads a stored value
	 * @param merge chooses between the value held and a newer record's value
	 */
	KafkaKeyedView(String topic, KafkaClients clients, KafkaWriter writer, Function<byte[], T> decoder,
			BinaryOperator<T> merge) {
		this(topic, clients, clients.followerConsumer(topic), writer, decoder, merge);
	}

	/**
	 * A view of one topic, read with the given consumer settings.
	 * @param topic the Kafka topic
	 * @param clients the clients
	 * @param consumerConfig the settings of the reader
	 * @param writer the writer of records
	 * @param decoder reads a stored value
	 * @param merge chooses between the value held and a newer record's value
	 */
	KafkaKeyedView(String topic, KafkaClients clients, Map<String, Object> consumerConfig, KafkaWriter writer,
			Function<byte[], T> decoder, BinaryOperator<T> merge) {
		this.decoder = decoder;
		this.merge = merge;
		this.log = new KafkaConfigLog(topic, clients, consumerConfig, writer, this::apply);
	}

	void start() {
		this.log.start();
	}

	private void apply(KafkaConfigLog.Entry entry) {
		if (entry.value() == null) {
			this.values.remove(entry.key());
		}
		else {
			T value = this.decoder.apply(entry.value());
			this.values.merge(entry.key(), value, this.merge);
		}
		this.changes.tryEmitNext(entry.key());
	}

	Optional<T> get(String key) {
		return Optional.ofNullable(this.values.get(key));
	}

	List<T> list() {
		return List.copyOf(this.values.values());
	}

	/**
	 * The values whose keys start with a prefix.
	 * @param prefix the prefix
	 * @return a live view of them, ordered by key
	 */
	Map<String, T> withPrefix(String prefix) {
		return this.values.subMap(prefix, prefix + Character.MAX_VALUE);
	}

	Mono<Void> write(String key, byte[] value) {
		return this.log.write(key, value).then();
	}

	Mono<Void> append(String key, byte[] value) {
		return this.log.append(key, value);
	}

	Mono<Void> appendAll(Map<String, byte[]> values) {
		return this.log.appendAll(values);
	}

	boolean isCaughtUp() {
		return this.log.isCaughtUp();
	}

	void awaitCaughtUp(Duration timeout) {
		this.log.awaitCaughtUp(timeout);
	}

	Flux<String> changes() {
		return this.changes.asFlux();
	}

	@Override
	public void close() {
		this.log.close();
		this.changes.tryEmitComplete();
	}

}
