package dev.streamgate.core.webhook;

import java.util.ArrayList;
import java.util.List;

import reactor.core.publisher.Mono;

/**
 * An {@link AttemptLog} in memory, for the tests of webhook delivery: every attempt, in
 * the order recorded.
 */
public class MemoryAttemptLog implements AttemptLog {

	private final List<Attempt> attempts = new ArrayList<>();

	@Override
	public Mono<Void> record(Attempt attempt) {
		return Mono.fromRunnable(() -> {
			synchronized (this) {
				this.attempts.add(attempt);
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
		for (int i = this.attempts.size() - 1; i >= 0 && recent.size() < limit; i--) {
			if (this.attempts.get(i).webhookId().equals(webhookId)) {
				recent.add(this.attempts.get(i));
			}
		}
		return recent;
	}

	@Override
	public synchronized void forget(String webhookId) {
		this.attempts.removeIf((attempt) -> attempt.webhookId().equals(webhookId));
	}

	/**
	 * Every attempt recorded, oldest first.
	 * @return the attempts
	 */
	public synchronized List<Attempt> all() {
		return List.copyOf(this.attempts);
	}

}
