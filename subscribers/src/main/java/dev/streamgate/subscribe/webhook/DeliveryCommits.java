package dev.streamgate.subscribe.webhook;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import dev.streamgate.core.storage.DeliveryStates;
import dev.streamgate.core.webhook.DeliveryState;

/**
 * Commits the delivery states of a node's dispatchers together: a dispatcher hands over
 * the state it reached, and once a second every state handed over since the last commit
 * goes to Kafka in one send, the newest of each webhook only. A stopping dispatcher's
 * state is committed at once rather than at the next second.
 * <p>
 * Each dispatcher used to sample its own states once a second: a timer per webhook that
 * fired every second for as long as the webhook lived, busy or idle, and a send of its
 * own for every commit.
 * <p>
 * Commits go one after the other: a webhook's newer state never lands before an older
 * one. A commit that fails is logged and dropped, as each dispatcher's were: the next
 * state of the webhook replaces it, and a webhook that stops with it uncommitted delivers
 * its last events again where it starts next (at least once).
 */
final class DeliveryCommits {

	private static final Log logger = LogFactory.getLog(DeliveryCommits.class);

	/** How often the states handed over are committed. */
	static final Duration EVERY = Duration.ofSeconds(1);

	/** How long the last commit is waited for when the node stops. */
	private static final Duration LAST_COMMIT_WAIT = Duration.ofSeconds(10);

	private final DeliveryStates states;

	private final Map<String, DeliveryState> pending = new ConcurrentHashMap<>();

	/** Asks for a commit before the next second: a dispatcher stopped. */
	private final Sinks.Many<Long> soon = Sinks.many().multicast().directBestEffort();

	private Disposable committing;

	/**
	 * Commits to a store.
	 * @param states where the states go
	 */
	DeliveryCommits(DeliveryStates states) {
		this.states = states;
	}

	synchronized void start() {
		if (this.committing == null) {
			this.committing = Flux.merge(Flux.interval(EVERY), this.soon.asFlux())
				// A commit takes everything handed over until it starts: the ticks that
				// come meanwhile have nothing to add.
				.onBackpressureDrop()
				.concatMap((tick) -> commit(), 1)
				.subscribe();
		}
	}

	/**
	 * Hands over the state a webhook reached; committed with the next commit, unless a
	 * newer one replaces it first.
	 * @param webhookId the webhook
	 * @param state its state
	 */
	void offer(String webhookId, DeliveryState state) {
		this.pending.put(webhookId, state);
	}

	/**
	 * Hands over the last state of a stopping dispatcher and asks for a commit now.
	 * @param webhookId the webhook
	 * @param state its state
	 */
	void offerLast(String webhookId, DeliveryState state) {
		offer(webhookId, state);
		this.soon.tryEmitNext(0L);
	}

	/**
	 * Forgets what a webhook handed over and was not committed yet: it was deleted.
	 * @param webhookId the webhook
	 */
	void forget(String webhookId) {
		this.pending.remove(webhookId);
	}

	/**
	 * Stops the commits of every second, then commits what was handed over, waiting up to
	 * 10 s for Kafka.
	 */
	void stop() {
		Disposable running;
		synchronized (this) {
			running = this.committing;
			this.committing = null;
		}
		if (running != null) {
			running.dispose();
		}
		try {
			commit().block(LAST_COMMIT_WAIT);
		}
		catch (RuntimeException ex) {
			logger.warn("Cannot commit the delivery states of this node's webhooks: " + ex.getMessage());
		}
	}

	private Mono<Void> commit() {
		return Mono.defer(() -> {
			Map<String, DeliveryState> taken = new LinkedHashMap<>();
			for (String webhookId : this.pending.keySet()) {
				// What was handed over after the key was seen is taken too: the newest.
				DeliveryState state = this.pending.remove(webhookId);
				if (state != null) {
					taken.put(webhookId, state);
				}
			}
			if (taken.isEmpty()) {
				return Mono.empty();
			}
			return this.states.saveAll(taken).onErrorResume((ex) -> {
				logger.warn("Cannot commit the delivery states of " + taken.size() + " webhooks: " + ex.getMessage());
				return Mono.empty();
			});
		});
	}

}
