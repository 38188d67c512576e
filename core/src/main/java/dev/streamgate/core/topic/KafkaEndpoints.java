package dev.streamgate.core.topic;

import java.util.Optional;

import reactor.core.publisher.Mono;

/**
 * Checks Kafka topics that users name, of their clusters or the gateway's own, before a
 * definition that names one is accepted (the implementation lives behind the Kafka
 * boundary).
 */
public interface KafkaEndpoints {

	/**
	 * Why a topic cannot be used, if it cannot: the cluster is unreachable, refuses the
	 * credentials, or has no such topic.
	 * @param endpoint the topic and how to reach it
	 * @return the reason, empty when the topic was found
	 */
	Mono<Optional<String>> check(KafkaEndpoint endpoint);

}
