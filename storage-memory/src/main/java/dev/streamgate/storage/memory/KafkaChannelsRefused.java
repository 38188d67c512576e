package dev.streamgate.storage.memory;

import java.util.Map;
import java.util.Optional;

import reactor.core.publisher.Mono;

import dev.streamgate.core.storage.KafkaSink;
import dev.streamgate.core.storage.MirrorException;
import dev.streamgate.core.storage.MirrorSource;
import dev.streamgate.core.storage.MirrorWriter;
import dev.streamgate.core.storage.Mirroring;
import dev.streamgate.core.topic.KafkaEndpoint;
import dev.streamgate.core.topic.Topic;

/**
 * Kafka publishers and Kafka subscriptions on a node without Kafka storage: a definition
 * that names a Kafka topic is refused when it is checked, with the reason, and nothing is
 * ever read from or written to Kafka.
 */
final class KafkaChannelsRefused implements KafkaSink, Mirroring {

	static final String REASON = "Kafka publishers and Kafka subscriptions need streamgate.storage=kafka: "
			+ "this node keeps its topics in memory";

	@Override
	public Mono<Optional<String>> check(KafkaEndpoint endpoint) {
		return Mono.just(Optional.of(REASON));
	}

	@Override
	public Mono<Void> send(KafkaEndpoint target, String key, byte[] value, Map<String, String> headers) {
		return Mono.error(new KafkaSinkException(REASON));
	}

	@Override
	public MirrorWriter writer(Topic topic) {
		throw new MirrorException(MirrorException.Kind.WRITE, REASON);
	}

	@Override
	public MirrorSource source(Topic topic, Map<Integer, Long> next) {
		throw new MirrorException(MirrorException.Kind.UNREACHABLE, REASON);
	}

}
