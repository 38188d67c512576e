package dev.streamgate.core.event;

/**
 * The snapshot store contract in memory ({@code streamgate.storage=memory}).
 */
class MemorySnapshotStoreContractTests extends SnapshotStoreContract {

	private final MemorySnapshotStore store = new MemorySnapshotStore();

	@Override
	protected SnapshotStore store() {
		return this.store;
	}

}
