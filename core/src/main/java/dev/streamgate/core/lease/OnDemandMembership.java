package dev.streamgate.core.lease;

import java.time.Duration;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.streamgate.core.storage.Leases;

/**
 * A place in a lease group held only while there is work of the group's kind: a node with
 * no webhooks (or pollers, or mirrors) keeps no member in that group, so it sends the
 * group no heartbeats and polls nothing for it. Every node sees the same definitions, so
 * the nodes join together when the first piece of work appears; they leave once there has
 * been none for a while, so that deleting the last and creating the next one does not
 * cost a rebalance.
 * <p>
 * The owner says after each of its passes whether there is work ({@link #workExists});
 * that never waits: joining starts the member's own thread, and leaving happens on
 * another thread (a member that leaves tells its listener, which may wait for the owner's
 * lock).
 */
public final class OnDemandMembership implements Leases.Membership {

	private final Leases leases;

	private final String group;

	private final Leases.Listener listener;

	private final Duration linger;

	private Leases.Membership member;

	private Disposable leaving;

	/** Tells a scheduled leave from a later one: a leave acts only if still the last. */
	private long leaves;

	private boolean closed;

	/**
	 * A membership not yet taken.
	 * @param leases the lease groups
	 * @param group the group
	 * @param listener told of changes to this member's share while it is a member
	 * @param linger how long a member with no work stays before it leaves
	 */
	public OnDemandMembership(Leases leases, String group, Leases.Listener listener, Duration linger) {
		this.leases = leases;
		this.group = group;
		this.listener = listener;
		this.linger = linger;
	}

	/**
	 * Joins at once when there is work and this node is not a member; with no work,
	 * leaves once the linger has passed without any.
	 * @param any whether there is work of the group's kind (owned here or not)
	 */
	public synchronized void workExists(boolean any) {
		if (this.closed) {
			return;
		}
		if (any) {
			if (this.leaving != null) {
				this.leaving.dispose();
				this.leaving = null;
			}
			if (this.member == null) {
				this.member = this.leases.join(this.group, this.listener);
			}
		}
		else if (this.member != null && this.leaving == null) {
			long leave = ++this.leaves;
			this.leaving = Mono.delay(this.linger, Schedulers.boundedElastic()).subscribe((tick) -> leaveIfIdle(leave));
		}
	}

	private void leaveIfIdle(long leave) {
		Leases.Membership gone;
		synchronized (this) {
			if (this.leaving == null || leave != this.leaves) {
				// work came back meanwhile
				return;
			}
			this.leaving = null;
			gone = this.member;
			this.member = null;
		}
		if (gone != null) {
			gone.close();
		}
	}

	/**
	 * Whether this node is in the group now.
	 * @return true from a join until the member leaves
	 */
	public synchronized boolean isMember() {
		return this.member != null;
	}

	@Override
	public boolean owns(String key) {
		Leases.Membership current;
		synchronized (this) {
			current = this.member;
		}
		return current != null && current.owns(key);
	}

	/** Leaves the group now, for good. */
	@Override
	public void close() {
		Leases.Membership gone;
		synchronized (this) {
			this.closed = true;
			if (this.leaving != null) {
				this.leaving.dispose();
				this.leaving = null;
			}
			gone = this.member;
			this.member = null;
		}
		if (gone != null) {
			gone.close();
		}
	}

}
