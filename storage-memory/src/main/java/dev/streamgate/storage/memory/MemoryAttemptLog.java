package dev.streamgate.storage.memory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import reactor.core.publisher.Mono;

import dev.streamgate.core.storage.AttemptLog;
import dev.streamgate.core.webhook.Attempt;

/**
 * An {@link AttemptLog} in memory, for a node that keeps everything there and for the
 * tests of webhook delivery: the newest {@value #KEPT} attempts of each webhook, as the
 * Kafka log keeps in memory of what it read.
 */
public class MemoryAttemptLog implements AttemptLog {

	/** Attempts kept per webhook. */
	static final int KEPT = 100;

	private final Map<String, Deque<Attempt>> attempts = new HashMap<>();

	@Override
	public Mono<Void> record(Attempt attempt) {
		return Mono.fromRunnable(() -> {
			synchronized (this) {
				Deque<Attempt> kept = this.attempts.computeIfAbsent(attempt.webhookId(), (id) -> new ArrayDeque<>());
				kept.addLast(attempt);
				if (kept.size() > KEPT) {
					kept.removeFirst();
				}
			}
		});
	}

	@Override
	public Mono<Void> recordReadable(Attempt attempt) {
		return record(attempt);
	}

	@Override
	public synchronized List<Attempt> recent(String webhookId, int limit) {
		List<Attempt> recent = new ArrayList<>();
		Deque<Attempt> kept = this.attempts.get(webhookId);
		if (kept != null) {
			for (Iterator<Attempt> it = kept.descendingIterator(); it.hasNext() && recent.size() < limit;) {
				recent.add(it.next());
			}
		}
		return recent;
	}

	@Override
	public synchronized void forget(String webhookId) {
		this.attempts.remove(webhookId);
	}

	/**
	 * Every attempt kept, each webhook's oldest first.
	 * @return the attempts
	 */
	public synchronized List<Attempt> all() {
		List<Attempt> all = new ArrayList<>();
		this.attempts.values().forEach(all::addAll);
		return all;
	}

}
