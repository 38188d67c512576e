package dev.streamgate.subscribe.sse;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;

/**
 * Caps the streams a node serves, in all and per client address, so that one client
 * cannot take every connection.
 */
final class StreamLimits {

	private static final Duration RETRY_AFTER = Duration.ofSeconds(5);

	private final int max;

	private final int maxPerClient;

	private final AtomicInteger open = new AtomicInteger();

	private final ConcurrentHashMap<String, AtomicInteger> perClient = new ConcurrentHashMap<>();

	StreamLimits(int max, int maxPerClient) {
		this.max = max;
		this.maxPerClient = maxPerClient;
	}

	/**
	 * Counts a new stream of a client.
	 * @param client the client address
	 * @throws StreamgateException {@code too-many-requests} over either limit
	 */
	void acquire(String client) {
		if (this.open.incrementAndGet() > this.max) {
			this.open.decrementAndGet();
			throw new StreamgateException(ProblemType.TOO_MANY_REQUESTS, "This node serves its maximum of " + this.max
					+ " streams (streamgate.sse.max-streams); retry later")
				.withRetryAfter(RETRY_AFTER);
		}
		AtomicInteger count = this.perClient.compute(client, (key, current) -> {
			AtomicInteger next = (current != null) ? current : new AtomicInteger();
			next.incrementAndGet();
			return next;
		});
		if (count.get() > this.maxPerClient) {
			release(client);
			throw new StreamgateException(ProblemType.TOO_MANY_REQUESTS,
					"Client " + client + " has its maximum of " + this.maxPerClient
							+ " open streams on this node (streamgate.sse.max-streams-per-client)")
				.withRetryAfter(RETRY_AFTER);
		}
	}

	/**
	 * Forgets a stream that ended.
	 * @param client the client address
	 */
	void release(String client) {
		this.open.decrementAndGet();
		this.perClient.computeIfPresent(client, (key, count) -> (count.decrementAndGet() <= 0) ? null : count);
	}

}
