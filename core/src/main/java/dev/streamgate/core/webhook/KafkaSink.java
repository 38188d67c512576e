package dev.streamgate.core.webhook;

import java.util.Map;
import java.util.Optional;

import reactor.core.publisher.Mono;

/**
 * Writes deliveries into Kafka topics of the clusters subscriptions name (the
 * implementation lives behind the Kafka boundary).
 */
public interface KafkaSink {

	/**
	 * Writes one record and waits for the cluster's acknowledgement (all in-sync
	 * replicas).
	 * @param target where
	 * @param key the record key
	 * @param value the record value
	 * @param headers the record headers
	 * @return completes when acknowledged, or fails with {@link KafkaSinkException}
	 */
	Mono<Void> send(KafkaTarget target, String key, byte[] value, Map<String, String> headers);

	/**
	 * Why a target cannot be written, if it cannot: the cluster is unreachable, refuses
	 * the credentials, or has no such topic.
	 * @param target the target
	 * @return the reason, empty when the topic was found
	 */
	Mono<Optional<String>> check(KafkaTarget target);

	/**
	 * A write that failed, with a message that says why and never a password.
	 */
	class KafkaSinkException extends RuntimeException {

		public KafkaSinkException(String message) {
			super(message, null, false, false);
		}

	}

}
