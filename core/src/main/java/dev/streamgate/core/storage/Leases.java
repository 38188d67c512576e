package dev.streamgate.core.storage;

/**
 * Shares work between the nodes of a role: each member of a group owns a part of the keys
 * (topic or webhook ids), every key has at most one owner once the group has settled, and
 * the keys of a member that leaves or dies move to the others.
 */
public interface Leases {

	/**
	 * Joins a group.
	 * @param group the group name, one per kind of work ({@code pollers},
	 * {@code webhooks})
	 * @param listener told whenever this member's share changes
	 * @return the membership; closing it leaves the group
	 */
	Membership join(String group, Listener listener);

	/**
	 * Told of changes to what a member owns. Called on the group's own thread; a call
	 * returns before the released keys go to another member, so work on them must be
	 * stopped before {@link #onChange} returns.
	 */
	@FunctionalInterface
	interface Listener {

		/**
		 * This member's share changed; {@link Membership#owns} answers the new share.
		 */
		void onChange();

	}

	/**
	 * This node's place in a group.
	 */
	interface Membership extends AutoCloseable {

		/**
		 * Whether this member owns a key now.
		 * @param key a topic or webhook id
		 * @return true when the work on this key is this member's
		 */
		boolean owns(String key);

		/**
		 * Leaves the group; the keys go to the other members at once.
		 */
		@Override
		void close();

	}

}
