package dev.streamgate.storage.memory;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import dev.streamgate.core.storage.WebhookStore;
import dev.streamgate.core.webhook.Webhook;

/**
 * A {@link WebhookStore} in memory, for the tests of what reads registrations: always
 * caught up, changes told to subscribers at once.
 */
public class MemoryWebhookStore implements WebhookStore {

	private final Map<String, Webhook> webhooks = new TreeMap<>();

	private final Sinks.Many<String> changes = Sinks.many().multicast().directBestEffort();

	@Override
	public synchronized Optional<Webhook> get(String id) {
		return Optional.ofNullable(this.webhooks.get(id));
	}

	@Override
	public synchronized List<Webhook> list() {
		return List.copyOf(this.webhooks.values());
	}

	@Override
	public Mono<Webhook> save(Webhook webhook) {
		return Mono.fromSupplier(() -> {
			synchronized (this) {
				this.webhooks.put(webhook.id(), webhook);
			}
			emit(webhook.id());
			return webhook;
		});
	}

	@Override
	public Mono<Void> delete(String id) {
		return Mono.fromRunnable(() -> {
			synchronized (this) {
				this.webhooks.remove(id);
			}
			emit(id);
		});
	}

	@Override
	public boolean isCaughtUp() {
		return true;
	}

	@Override
	public Flux<String> changes() {
		return this.changes.asFlux();
	}

	private synchronized void emit(String id) {
		this.changes.tryEmitNext(id);
	}

}
