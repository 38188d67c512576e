package dev.streamgate.core.storage;

import java.util.List;

import reactor.core.publisher.Mono;

import dev.streamgate.core.webhook.Attempt;
import dev.streamgate.core.webhook.Webhook;

/**
 * Webhook delivery attempts, kept for the attempts API.
 */
public interface AttemptLog {

	/**
	 * Records an attempt.
	 * @param attempt the attempt
	 * @return completes once Kafka has it
	 */
	Mono<Void> record(Attempt attempt);

	/**
	 * Records an attempt and completes once {@link #recent} on this node shows it, for an
	 * attempt a client asked for and reads next (a test ping).
	 * @param attempt the attempt
	 * @return completes once readable here
	 */
	Mono<Void> recordReadable(Attempt attempt);

	/**
	 * The newest attempts of a webhook that this node has read.
	 * @param webhookId the webhook id
	 * @param limit how many at most
	 * @return the attempts, newest first
	 */
	List<Attempt> recent(String webhookId, int limit);

	/**
	 * Forgets a deleted webhook's attempts in memory (Kafka drops them with time).
	 * @param webhookId the webhook id
	 */
	void forget(String webhookId);

}
