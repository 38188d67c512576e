package dev.streamgate.diagnostics;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.HotSpotDiagnosticMXBean;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Pauses G1's periodic collections once they give no heap back, and resumes them when the
 * heap has grown again.
 * <p>
 * A periodic collection is a concurrent cycle: it marks every live object. On an idle
 * node with 10,000 topics (500 MiB live) one a minute was a quarter of the node's idle
 * CPU, long after the first ones had returned all the heap there was to return. So the
 * periodic collections pause ({@code G1PeriodicGCInterval=0}) once one of them finds the
 * heap as small as they make it: no smaller than at the periodic collection before it,
 * with no other collection between them, and no more than {@code MaxHeapFreeRatio} allows
 * around the heap in use (give or take a tenth), or at the JVM's minimum. Both are
 * needed: G1 gives heap back only at the end of a marking cycle, so a collection in
 * between (young or mixed) finds the heap as it was, and what is in use before the mixed
 * collections still counts garbage. They resume once more heap is committed than when
 * they paused, seen after any other collection or by a look every interval (the JVM may
 * grow the heap for a large object without collecting): the node has been working, and
 * what it grew for can go back once it is idle again.
 */
final class PeriodicCollections implements NotificationListener, AutoCloseable {

	/** The cause of a collection that {@code G1PeriodicGCInterval} started. */
	static final String PERIODIC = "G1 Periodic Collection";

	private static final Log logger = LogFactory.getLog(PeriodicCollections.class);

	private final HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);

	private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

	private final List<NotificationEmitter> emitters = new ArrayList<>();

	private final ScheduledExecutorService looks = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "streamgate-heap-watch");
		thread.setDaemon(true);
		return thread;
	});

	private final long intervalMillis;

	private final int maxFreePercent;

	private final long minimum;

	/** The heap committed at the last periodic collection; -1 after any other. */
	private long previous = -1;

	/** The heap committed when the periodic collections paused; -1 while they run. */
	private long paused = -1;

	private PeriodicCollections(long intervalMillis) {
		this.intervalMillis = intervalMillis;
		this.maxFreePercent = Integer.parseInt(this.vm.getVMOption("MaxHeapFreeRatio").getValue());
		this.minimum = Long.parseLong(this.vm.getVMOption("MinHeapSize").getValue());
	}

	/**
	 * Watches the JVM's collections, from now until {@link #close()}.
	 * @param intervalMillis the {@code G1PeriodicGCInterval} the node set, given back on
	 * resuming
	 * @return the watch
	 */
	static PeriodicCollections watch(long intervalMillis) {
		PeriodicCollections watch = new PeriodicCollections(intervalMillis);
		for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
			if (collector instanceof NotificationEmitter emitter) {
				emitter.addNotificationListener(watch, null, null);
				watch.emitters.add(emitter);
			}
		}
		watch.looks.scheduleWithFixedDelay(watch::look, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
		return watch;
	}

	@Override
	public void handleNotification(Notification notification, Object handback) {
		if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
			return;
		}
		GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo
			.from((CompositeData) notification.getUserData());
		// Newer JVMs also report a concurrent cycle's pauses (remark, clean-up): they
		// belong to the periodic collection that started the cycle.
		if (!info.getGcName().contains("Concurrent")) {
			MemoryUsage heap = this.memory.getHeapMemoryUsage();
			collected(info.getGcCause(), heap.getUsed(), heap.getCommitted());
		}
	}

	/**
	 * Takes a collection into account.
	 * @param cause why it ran
	 * @param used the heap in use after it, in bytes
	 * @param committed the heap committed after it, in bytes
	 */
	synchronized void collected(String cause, long used, long committed) {
		if (PERIODIC.equals(cause)) {
			long smallest = Math.max(this.minimum, used * 100 / (100 - this.maxFreePercent) * 11 / 10);
			if (this.previous >= 0 && committed >= this.previous && committed <= smallest) {
				this.paused = committed;
				this.previous = -1;
				interval(0, "paused: the last one gave no heap back (" + (committed >> 20) + " MiB committed)");
			}
			else {
				this.previous = committed;
			}
			return;
		}
		this.previous = -1;
		resumeIfGrown(committed);
	}

	private void look() {
		resumeIfGrown(this.memory.getHeapMemoryUsage().getCommitted());
	}

	private synchronized void resumeIfGrown(long committed) {
		if (this.paused >= 0 && committed > this.paused) {
			this.paused = -1;
			interval(this.intervalMillis, "resumed: the heap grew to " + (committed >> 20) + " MiB");
		}
	}

	private void interval(long millis, String why) {
		this.vm.setVMOption("G1PeriodicGCInterval", Long.toString(millis));
		if (logger.isDebugEnabled()) {
			logger.debug("Periodic collections " + why);
		}
	}

	/** Stops watching, and leaves the periodic collections running. */
	@Override
	public synchronized void close() {
		this.looks.shutdownNow();
		for (NotificationEmitter emitter : this.emitters) {
			try {
				emitter.removeNotificationListener(this);
			}
			catch (ListenerNotFoundException ex) {
				// Not there: nothing to remove.
			}
		}
		this.emitters.clear();
		if (this.paused >= 0) {
			this.paused = -1;
			interval(this.intervalMillis, "resumed: no longer watched");
		}
	}

}
