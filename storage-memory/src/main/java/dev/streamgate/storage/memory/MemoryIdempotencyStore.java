package dev.streamgate.storage.memory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import reactor.core.publisher.Mono;

import dev.streamgate.core.storage.IdempotencyStore;

/**
 * Idempotency-Key claims and answers in the memory of one node: for a gateway without a
 * cluster ({@code streamgate.storage=memory}), and for tests of what uses a store.
 * Answers are kept for the window; a claim until it is answered or released. At most
 * {@code maxBytes} of answers (each counted with its body and {@value #KEY_OVERHEAD}
 * bytes beside): beyond it the oldest answers go before their window ends.
 */
public final class MemoryIdempotencyStore implements IdempotencyStore {

	private static final int SWEEP_EVERY = 1024;

	/** What a key costs beside its answer's body: the entry, the key, the digest. */
	static final int KEY_OVERHEAD = 256;

	private final Map<String, Object> keys = new ConcurrentHashMap<>();

	private final AtomicLong claims = new AtomicLong();

	private final Duration window;

	private final Clock clock;

	private final long maxBytes;

	private final AtomicLong bytes = new AtomicLong();

	/**
	 * An empty store without a bound but the window.
	 * @param window how long an answer is remembered
	 * @param clock the clock that says when the window has passed
	 */
	public MemoryIdempotencyStore(Duration window, Clock clock) {
		this(window, clock, Long.MAX_VALUE);
	}

	/**
	 * An empty store.
	 * @param window how long an answer is remembered
	 * @param clock the clock that says when the window has passed
	 * @param maxBytes the most its answers take
	 */
	public MemoryIdempotencyStore(Duration window, Clock clock, long maxBytes) {
		this.window = window;
		this.clock = clock;
		this.maxBytes = maxBytes;
	}

	@Override
	public boolean isCaughtUp() {
		return true;
	}

	@Override
	public Mono<Claim> claim(String topicId, String key, byte[] digest) {
		return Mono.fromSupplier(() -> {
			if (this.claims.incrementAndGet() % SWEEP_EVERY == 0) {
				sweep();
			}
			Won won = new Won(new Claim.Won(topicId, key, UUID.randomUUID().toString()), digest);
			Object[] replaced = new Object[1];
			Object state = this.keys.compute(key(topicId, key), (k, known) -> {
				if (known == null || expired(known)) {
					replaced[0] = known;
					return won;
				}
				return known;
			});
			if (replaced[0] instanceof Answer expired) {
				this.bytes.addAndGet(-cost(expired));
			}
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
		return Mono.fromRunnable(() -> {
			Object replaced = this.keys.put(key(claim.topicId(), claim.key()), answer);
			this.bytes.addAndGet(cost(answer) - ((replaced instanceof Answer previous) ? cost(previous) : 0));
			if (this.bytes.get() > this.maxBytes) {
				evictOldest();
			}
		});
	}

	/** Drops expired answers, then the oldest until a tenth of the budget is free. */
	private synchronized void evictOldest() {
		sweep();
		if (this.bytes.get() <= this.maxBytes) {
			return;
		}
		List<Map.Entry<String, Object>> answers = new ArrayList<>();
		this.keys.entrySet().stream().filter((entry) -> entry.getValue() instanceof Answer).forEach(answers::add);
		answers.sort(Comparator.comparing((entry) -> ((Answer) entry.getValue()).at()));
		long target = this.maxBytes - this.maxBytes / 10;
		for (Map.Entry<String, Object> entry : answers) {
			if (this.bytes.get() <= target) {
				break;
			}
			if (this.keys.remove(entry.getKey(), entry.getValue())) {
				this.bytes.addAndGet(-cost((Answer) entry.getValue()));
			}
		}
	}

	private void sweep() {
		this.keys.entrySet().removeIf((entry) -> {
			boolean expired = expired(entry.getValue());
			if (expired) {
				this.bytes.addAndGet(-cost((Answer) entry.getValue()));
			}
			return expired;
		});
	}

	private static long cost(Answer answer) {
		return KEY_OVERHEAD + ((answer.body() != null) ? answer.body().length : 0);
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
