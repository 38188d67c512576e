package dev.streamgate.publish.ingest;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of publications this node holds between reading a request and Kafka's answer,
 * bounded so that a node asked for more than Kafka takes refuses the excess at once
 * ({@code 503 overloaded}) instead of queueing it on the heap until the write timeout. A
 * publication is admitted whenever nothing else is held, so one larger than the bound is
 * slow rather than refused for ever.
 */
final class InFlightPublications {

	private final long limit;

	private final AtomicLong held = new AtomicLong();

	InFlightPublications(long limit) {
		if (limit <= 0) {
			throw new IllegalArgumentException("limit must be positive, not " + limit);
		}
		this.limit = limit;
	}

	/**
	 * Holds the given bytes if they fit.
	 * @param bytes what the publication costs
	 * @return whether it was admitted; if so, {@link #release} the same bytes when it
	 * ends
	 */
	boolean tryAcquire(long bytes) {
		while (true) {
			long current = this.held.get();
			if (current > 0 && current + bytes > this.limit) {
				return false;
			}
			if (this.held.compareAndSet(current, current + bytes)) {
				return true;
			}
		}
	}

	void release(long bytes) {
		this.held.addAndGet(-bytes);
	}

	long held() {
		return this.held.get();
	}

	long limit() {
		return this.limit;
	}

}
