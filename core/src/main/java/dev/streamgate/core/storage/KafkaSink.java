package dev.streamgate.core.storage;

import java.util.Map;

import reactor.core.publisher.Mono;

import dev.streamgate.core.topic.KafkaEndpoint;
import dev.streamgate.core.topic.KafkaEndpoints;

/**
 * Writes deliveries into Kafka topics of the clusters subscriptions name (the
 * implementation lives behind the Kafka boundary).
 */
public interface KafkaSink extends KafkaEndpoints {

	/**
	 * Writes one record and waits for the cluster's acknowledgement (all in-sync
	 * replicas).
	 * @param target where
	 * @param key the record key
	 * @param value the record value
	 * @param headers the record headers
	 * @return completes when acknowledged, or fails with {@link KafkaSinkException}
	 */
	Mono<Void> send(KafkaEndpoint target, String key, byte[] value, Map<String, String> headers);

	/**
	 * A write that failed, with a message that says why and never a password.
	 */
	class KafkaSinkException extends RuntimeException {

		public KafkaSinkException(String message) {
			super(message, null, false, false);
		}

	}

}
