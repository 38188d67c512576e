package dev.streamgate.diagnostics;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

import com.sun.management.HotSpotDiagnosticMXBean;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Spaces out G1's periodic collections once they have given the idle heap back, and
 * brings them back to their interval when the heap grows.
 * <p>
 * A periodic collection that starts a concurrent cycle marks every live object: on an
 * idle node with 10,000 topics and their streams (450 MiB live) about a second of CPU,
 * one minute in three, long after the first cycle gave back all there was to give. So the
 * interval ({@code G1PeriodicGCInterval}) goes to its longest once the committed heap has
 * shrunk (G1 gives heap back only at the end of a cycle), doubles whenever the heap
 * stayed as it was for three intervals (G1 marks, then runs its mixed collections: three
 * periodic collections give a cycle its chance), and is back to its shortest as soon as
 * the heap grows: the node has been working, and what it grew for goes back once it is
 * idle.
 */
final class PeriodicCollections implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(PeriodicCollections.class);

	private final long shortest;

	private final long longest;

	private final LongConsumer apply;

	private long interval;

	/** The committed heap at the last look; -1 before the first. */
	private long committed = -1;

	/** How long the committed heap has stayed as it is, in milliseconds. */
	private long unchangedFor;

	private ScheduledExecutorService looks;

	/**
	 * @param shortest the interval while the heap grows or was never given back, in
	 * milliseconds; also how often the heap is looked at
	 * @param longest the interval once the heap has been given back, in milliseconds
	 * @param apply sets the interval
	 */
	PeriodicCollections(long shortest, long longest, LongConsumer apply) {
		this.shortest = shortest;
		this.longest = Math.max(shortest, longest);
		this.apply = apply;
		this.interval = shortest;
	}

	/**
	 * Watches this JVM's heap, from now until {@link #close()}, and sets its
	 * {@code G1PeriodicGCInterval}.
	 * @param shortest the interval the node set, in milliseconds
	 * @param longest the longest interval, in milliseconds
	 * @return the watch
	 */
	static PeriodicCollections watch(long shortest, long longest) {
		HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
		PeriodicCollections watch = new PeriodicCollections(shortest, longest,
				(millis) -> vm.setVMOption("G1PeriodicGCInterval", Long.toString(millis)));
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		watch.looks = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "streamgate-heap-watch");
			thread.setDaemon(true);
			return thread;
		});
		watch.looks.scheduleWithFixedDelay(() -> watch.look(memory.getHeapMemoryUsage().getCommitted()), 0, shortest,
				TimeUnit.MILLISECONDS);
		return watch;
	}

	/**
	 * Takes one look at the heap: called once every shortest interval.
	 * @param committedNow the heap committed now, in bytes
	 * @return the interval from now on, in milliseconds
	 */
	synchronized long look(long committedNow) {
		long before = this.committed;
		this.committed = committedNow;
		if (before < 0 || committedNow != before) {
			this.unchangedFor = 0;
			if (before >= 0) {
				set((committedNow > before) ? this.shortest : this.longest, committedNow);
			}
			return this.interval;
		}
		this.unchangedFor += this.shortest;
		if (this.interval < this.longest && this.unchangedFor >= 3 * this.interval) {
			this.unchangedFor = 0;
			set(Math.min(2 * this.interval, this.longest), committedNow);
		}
		return this.interval;
	}

	private void set(long millis, long committedNow) {
		if (millis == this.interval) {
			return;
		}
		try {
			this.apply.accept(millis);
		}
		catch (RuntimeException ex) {
			// Keep looking: a look that threw would end the scheduled looks.
			logger.warn("The JVM refused G1PeriodicGCInterval=" + millis + ": " + ex.getMessage());
			return;
		}
		this.interval = millis;
		if (logger.isDebugEnabled()) {
			logger.debug("Periodic collections every " + millis + " ms (" + (committedNow >> 20)
					+ " MiB of heap committed)");
		}
	}

	/** Stops watching, and leaves the periodic collections at their shortest interval. */
	@Override
	public synchronized void close() {
		if (this.looks != null) {
			this.looks.shutdownNow();
			this.looks = null;
		}
		set(this.shortest, this.committed);
	}

}
