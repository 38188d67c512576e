package dev.streamgate.diagnostics;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.netty.util.concurrent.EventExecutor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.netty.http.HttpResources;
import reactor.netty.resources.LoopResources;

import org.springframework.context.SmartLifecycle;

/**
 * Logs the stack of an HTTP event loop that stays busy with one task too long, and the
 * stack of whatever thread holds the lock it waits for: one blocking call on a loop
 * stalls every connection the loop serves, and without the stack such a stall is only a
 * request that never got its answer. Like Vert.x's blocked-thread checker, it posts a
 * no-op to each loop and looks whether it ran.
 */
final class EventLoopWatchdog implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(EventLoopWatchdog.class);

	private final Duration threshold;

	private final List<? extends Iterable<EventExecutor>> groups;

	private final List<Probe> probes = new ArrayList<>();

	private ScheduledExecutorService checker;

	/**
	 * Watches the loops that serve the node's HTTP requests and others besides.
	 * @param threshold how long a loop may run one task; zero turns the watch off
	 * @param others more loops to watch (those of outgoing connections)
	 */
	EventLoopWatchdog(Duration threshold, List<? extends Iterable<EventExecutor>> others) {
		this.threshold = threshold;
		this.groups = others;
	}

	@Override
	public void start() {
		if (this.threshold.isZero() || this.threshold.isNegative()) {
			return;
		}
		// The server runs on Reactor Netty's global resources (Spring Boot's default);
		// outgoing connections run on loops of their own (EgressGuard), which a stall
		// holds up the same way: webhooks, polls, token requests.
		watch(HttpResources.get().onServer(LoopResources.DEFAULT_NATIVE));
		this.groups.forEach(this::watch);
		this.checker = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "streamgate-event-loop-watchdog");
			thread.setDaemon(true);
			return thread;
		});
		long period = Math.max(100, this.threshold.toMillis() / 4);
		this.checker.scheduleWithFixedDelay(this::check, period, period, TimeUnit.MILLISECONDS);
	}

	private void watch(Iterable<EventExecutor> loops) {
		for (EventExecutor loop : loops) {
			Probe probe = new Probe(loop);
			// Learn each loop's thread now, while it is idle: a loop blocked before its
			// thread is known cannot be reported.
			loop.execute(() -> probe.thread = Thread.currentThread());
			this.probes.add(probe);
		}
	}

	private void check() {
		long now = System.nanoTime();
		for (Probe probe : this.probes) {
			probe.check(now, this.threshold.toNanos());
		}
	}

	@Override
	public void stop() {
		if (this.checker != null) {
			this.checker.shutdownNow();
			this.checker = null;
		}
		this.probes.clear();
	}

	@Override
	public boolean isRunning() {
		return this.checker != null;
	}

	private static String stacks(Thread blocked) {
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		StringBuilder text = new StringBuilder();
		ThreadInfo info = threads.getThreadInfo(blocked.getId(), Integer.MAX_VALUE);
		append(text, info);
		if (info != null && info.getLockOwnerId() != -1) {
			text.append("held by:\n");
			append(text, threads.getThreadInfo(info.getLockOwnerId(), Integer.MAX_VALUE));
		}
		return text.toString();
	}

	private static void append(StringBuilder text, ThreadInfo info) {
		if (info == null) {
			return;
		}
		text.append('"').append(info.getThreadName()).append("\" ").append(info.getThreadState());
		if (info.getLockName() != null) {
			text.append(" on ").append(info.getLockName());
		}
		text.append('\n');
		for (StackTraceElement frame : info.getStackTrace()) {
			text.append("\tat ").append(frame).append('\n');
		}
	}

	/** One loop: a no-op posted to it, and since when it waits to run. */
	private static final class Probe {

		private final EventExecutor loop;

		private volatile Thread thread;

		private volatile long postedAt;

		private volatile boolean waiting;

		private boolean reported;

		Probe(EventExecutor loop) {
			this.loop = loop;
		}

		void check(long now, long threshold) {
			if (!this.waiting) {
				this.reported = false;
				this.postedAt = now;
				this.waiting = true;
				try {
					this.loop.execute(() -> {
						this.thread = Thread.currentThread();
						this.waiting = false;
					});
				}
				catch (RejectedExecutionException ex) {
					// Its loops shut down before the watch stopped (the node is closing).
					this.waiting = false;
				}
				return;
			}
			Thread blocked = this.thread;
			if (!this.reported && blocked != null && now - this.postedAt > threshold) {
				this.reported = true;
				logger.warn("Event loop " + blocked.getName() + " has been busy with one task for "
						+ Duration.ofNanos(now - this.postedAt).toMillis()
						+ " ms; every connection it serves waits. It is running:\n" + stacks(blocked));
			}
		}

	}

}
