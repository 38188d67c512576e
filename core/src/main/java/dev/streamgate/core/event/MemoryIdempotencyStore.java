package dev.streamgate.core.event;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import reactor.core.publisher.Mono;

/**
 * Idempotency-Key claims and answers in the memory of one node: for a gateway without a
 * cluster, and for tests of what uses a store. Answers are kept for the window; a claim
 * until it is answered or released.
 */
public final class MemoryIdempotencyStore implements IdempotencyStore {

	private static final int SWEEP_EVERY = 1024;

	private final Map<String, Object> keys = new ConcurrentHashMap<>();

	private final AtomicLong claims = new AtomicLong();

	private final Duration window;

	private final Clock clock;

	/**
	 * An empty store.
	 * @param window how long an answer is remembered
	 * @param clock the clock that says when the window has passed
	 */
	public MemoryIdempotencyStore(Duration window, Clock clock) {
		this.window = window;
		this.clock = clock;
	}

	@Override
	public boolean isCaughtUp() {
		return true;
	}

	@Override
	public Mono<Claim> claim(String topicId, String key, byte[] digest) {
		return Mono.fromSupplier(() -> {
			if (this.claims.incrementAndGet() % SWEEP_EVERY == 0) {
				this.keys.values().removeIf(this::expired);
			}
			Won won = new Won(new Claim.Won(topicId, key, UUID.randomUUID().toString()), digest);
			Object state = this.keys.compute(key(topicId, key),
					(k, known) -> (known == null || expired(known)) ? won : known);
			if (state == won) {
				return won.claim();
			}
			return (state instanceof Answer answer) ? new Claim.Answered(answer)
					: new Claim.InUse(((Won) state).digest());
		});
	}

	private boolean expired(Object known) {
		return known instanceof Answer answer && answer.at().plus(this.window).isBefore(this.clock.instant());
	}

	@Override
	public Mono<Void> answer(Claim.Won claim, Answer answer) {
		return Mono.fromRunnable(() -> this.keys.put(key(claim.topicId(), claim.key()), answer));
	}

	@Override
	public Mono<Void> release(Claim.Won claim) {
		return Mono.fromRunnable(() -> this.keys.computeIfPresent(key(claim.topicId(), claim.key()),
				(k, known) -> (known instanceof Won won && won.claim().equals(claim)) ? null : known));
	}

	private static String key(String topicId, String key) {
		return topicId + '\n' + key;
	}

	private record Won(Claim.Won claim, byte[] digest) {
	}

}
