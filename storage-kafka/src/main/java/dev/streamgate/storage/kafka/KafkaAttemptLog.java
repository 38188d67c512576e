package dev.streamgate.storage.kafka;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import reactor.core.publisher.Mono;

import dev.streamgate.core.storage.AttemptLog;
import dev.streamgate.core.webhook.Attempt;
import dev.streamgate.core.webhook.WebhookJson;

/**
 * Delivery attempts in the time-retained {@code attempts} topic (key = webhook id): one
 * record per delivery attempt, written by the nodes that deliver and read, into a bounded
 * list per webhook, only by the nodes that serve the admin API's attempts list (the
 * {@code admin} role). The other nodes write without reading.
 */
public final class KafkaAttemptLog implements AttemptLog, AutoCloseable {

	/** Attempts kept in memory per webhook. */
	static final int KEPT = 100;

	private final KafkaConfigLog log;

	private final Map<String, Deque<Attempt>> attempts = new ConcurrentHashMap<>();

	KafkaAttemptLog(KafkaClients clients, KafkaWriter writer) {
		String topic = clients.properties().topicPrefix() + "attempts";
		this.log = new KafkaConfigLog(topic, clients, clients.bulkConsumer(topic), writer, this::apply);
	}

	/** Starts reading the attempts, on a node that serves them. */
	void startReading() {
		this.log.start();
	}

	private void apply(KafkaConfigLog.Entry entry) {
		if (entry.value() == null || entry.key() == null) {
			return;
		}
		Attempt attempt = WebhookJson.fromBytes(entry.value(), Attempt.class);
		Deque<Attempt> kept = this.attempts.computeIfAbsent(entry.key(), (key) -> new ArrayDeque<>());
		synchronized (kept) {
			kept.addFirst(attempt);
			while (kept.size() > KEPT) {
				kept.removeLast();
			}
		}
	}

	@Override
	public Mono<Void> record(Attempt attempt) {
		return this.log.append(attempt.webhookId(), WebhookJson.toBytes(attempt));
	}

	@Override
	public Mono<Void> recordReadable(Attempt attempt) {
		return this.log.write(attempt.webhookId(), WebhookJson.toBytes(attempt)).then();
	}

	@Override
	public List<Attempt> recent(String webhookId, int limit) {
		Deque<Attempt> kept = this.attempts.get(webhookId);
		if (kept == null) {
			return List.of();
		}
		List<Attempt> newest = new ArrayList<>(Math.min(limit, KEPT));
		synchronized (kept) {
			for (Iterator<Attempt> it = kept.iterator(); it.hasNext() && newest.size() < limit;) {
				newest.add(it.next());
			}
		}
		return newest;
	}

	@Override
	public void forget(String webhookId) {
		this.attempts.remove(webhookId);
	}

	@Override
	public void close() {
		this.log.close();
	}

}
