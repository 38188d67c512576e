package dev.streamgate.storage.kafka;

import java.time.Duration;

import org.apache.kafka.clients.consumer.Consumer;

/**
 * The thread that owns a Kafka consumer and polls it in a loop. A consumer is not
 * thread-safe: other threads only wake it ({@link Consumer#wakeup()}: its poll in
 * progress, or its next, ends with a {@code WakeupException}) and ask the loop to stop.
 * The readers of the config logs, the lease groups' members and the event tail each run
 * their loop on one.
 */
final class ConsumerThread {

	/** How long {@link #stop()} waits for the loop to end. */
	private static final Duration JOIN = Duration.ofSeconds(10);

	private final Thread thread;

	private volatile boolean running = true;

	private volatile Consumer<?, ?> consumer;

	/**
	 * A daemon thread, not started yet.
	 * @param name the thread's name
	 * @param loop the loop, which goes on while {@link #running()}
	 */
	ConsumerThread(String name, Runnable loop) {
		this.thread = new Thread(loop, name);
		this.thread.setDaemon(true);
	}

	void start() {
		this.thread.start();
	}

	/**
	 * Whether the loop goes on.
	 * @return {@code false} once {@link #halt()} or {@link #stop()} was called
	 */
	boolean running() {
		return this.running;
	}

	/**
	 * Names the consumer the loop polls from now on: the one {@link #wakeup()} wakes.
	 * @param <C> the consumer's type
	 * @param polled the consumer
	 * @return the consumer
	 */
	<C extends Consumer<?, ?>> C polls(C polled) {
		this.consumer = polled;
		return polled;
	}

	/** Ends the consumer's poll in progress, or its next one, if it has a consumer. */
	void wakeup() {
		Consumer<?, ?> current = this.consumer;
		if (current != null) {
			current.wakeup();
		}
	}

	/** Asks the loop to end, wakes its consumer, and waits up to ten seconds for it. */
	void stop() {
		halt();
		join();
	}

	/** Asks the loop to end and wakes its consumer, without waiting. */
	void halt() {
		this.running = false;
		wakeup();
	}

	/** Waits up to ten seconds for the loop to end; from the loop itself, returns. */
	void join() {
		if (Thread.currentThread() == this.thread) {
			return;
		}
		try {
			this.thread.join(JOIN.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * The thread, for a description of where it is.
	 * @return the thread
	 */
	Thread thread() {
		return this.thread;
	}

}
