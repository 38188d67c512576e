package dev.streamgate.core.lease;

import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

import dev.streamgate.core.storage.Leases;

/**
 * Runs one worker per piece of work of one kind that this node owns in a lease group (a
 * topic's poller or mirror, a webhook's dispatcher): in the group while there is work of
 * the kind, a worker started when its piece appears or its lease arrives, stopped when
 * the piece goes or its lease moves to another node, and replaced when the piece changes.
 * Each pass matches the workers to the work; passes run on every signal of the triggers
 * given at start and whenever this node's share of the group changes.
 *
 * @param <T> a piece of work
 * @param <W> its worker
 */
public final class LeasedWork<T, W> {

	private static final Log logger = LogFactory.getLog(LeasedWork.class);

	/** How long a node stays in the group once the last piece of work is gone. */
	private static final Duration LINGER = Duration.ofMinutes(1);

	private final String group;

	private final Leases leases;

	private final Plan<T, W> plan;

	/** Running workers by the lease key of their work. */
	private final Map<String, W> running = new ConcurrentHashMap<>();

	private volatile OnDemandMembership membership;

	private Disposable triggers;

	/**
	 * Work of one kind.
	 * @param group the lease group
	 * @param leases the lease groups
	 * @param plan what the work is and how its workers start and stop
	 */
	public LeasedWork(String group, Leases leases, Plan<T, W> plan) {
		this.group = group;
		this.leases = leases;
		this.plan = plan;
	}

	/**
	 * Starts matching workers to the work.
	 * @param passes each signal runs a pass (the work's changes, periodic rechecks)
	 */
	public synchronized void start(Flux<?> passes) {
		this.membership = new OnDemandMembership(this.leases, this.group, this::reconcile, LINGER);
		this.triggers = passes.subscribe((signal) -> reconcile(),
				(ex) -> logger.error("The " + this.group + " group stopped following its work", ex));
	}

	/** Stops every worker and leaves the group. */
	public void stop() {
		OnDemandMembership leaving;
		synchronized (this) {
			if (this.triggers != null) {
				this.triggers.dispose();
			}
			leaving = this.membership;
			this.membership = null;
			this.running.forEach((key, worker) -> this.plan.stop(key, worker, true));
			this.running.clear();
		}
		// Outside the lock: leaving may call reconcile() on the group's thread, which
		// needs it.
		if (leaving != null) {
			leaving.close();
		}
	}

	/**
	 * Whether this node follows the work.
	 * @return true between start and stop
	 */
	public boolean isRunning() {
		return this.membership != null;
	}

	/**
	 * The worker of a piece of work, when this node runs it.
	 * @param key the work's lease key
	 * @return the worker
	 */
	public Optional<W> worker(String key) {
		return Optional.ofNullable(this.running.get(key));
	}

	/**
	 * The workers this node runs, by the lease key of their work.
	 * @return a live, unmodifiable view
	 */
	public Map<String, W> running() {
		return Collections.unmodifiableMap(this.running);
	}

	/**
	 * Starts and stops workers to match the work and this node's leases; a worker is
	 * stopped before this returns (a released lease goes to another node only then).
	 */
	private synchronized void reconcile() {
		OnDemandMembership current = this.membership;
		Map<String, T> wanted = new HashMap<>();
		List<T> all = (current != null) ? this.plan.all() : null;
		if (all != null) {
			current.workExists(!all.isEmpty());
			for (T work : all) {
				String key = this.plan.key(work);
				if (current.owns(key)) {
					wanted.put(key, work);
				}
			}
		}
		this.running.entrySet().removeIf((entry) -> {
			T work = wanted.get(entry.getKey());
			boolean keep = work != null && this.plan.serves(entry.getValue(), work);
			if (!keep) {
				this.plan.stop(entry.getKey(), entry.getValue(), false);
			}
			return !keep;
		});
		this.plan.stopped();
		wanted.forEach((key, work) -> this.running.computeIfAbsent(key, (absent) -> this.plan.start(work)));
		if (logger.isDebugEnabled()) {
			logger.debug(this.group + ": running "
					+ this.running.keySet().stream().sorted().collect(Collectors.joining(", ")));
		}
	}

	/**
	 * What the work of a group is, and how its workers start and stop. Called under the
	 * group's lock, one pass at a time.
	 *
	 * @param <T> a piece of work
	 * @param <W> its worker
	 */
	public interface Plan<T, W> {

		/**
		 * Every piece of work of the kind, this node's or not.
		 * @return the work, or {@code null} while what it is read from has not been read
		 * to its end (no worker runs until it has)
		 */
		List<T> all();

		/**
		 * The lease key of a piece of work: one node of the group owns it.
		 * @param work the work
		 * @return the key
		 */
		String key(T work);

		/**
		 * Whether a running worker still serves a piece of work as it is now; if not, it
		 * is stopped and a new one started.
		 * @param worker the running worker
		 * @param work the work as it is now
		 * @return whether it is kept
		 */
		boolean serves(W worker, T work);

		/**
		 * Starts the worker of a piece of work this node now owns.
		 * @param work the work
		 * @return the running worker
		 */
		W start(T work);

		/**
		 * Stops a worker, before returning.
		 * @param key its work's lease key
		 * @param worker the worker
		 * @param nodeStopping true when this node stops; false when its work is gone,
		 * changed or now another node's
		 */
		void stop(String key, W worker, boolean nodeStopping);

		/** After a pass has stopped the workers it stops, before it starts any. */
		default void stopped() {
		}

	}

}
