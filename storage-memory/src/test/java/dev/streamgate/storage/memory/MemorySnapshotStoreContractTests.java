package dev.streamgate.storage.memory;

import dev.streamgate.core.storage.SnapshotStore;
import dev.streamgate.core.storage.SnapshotStoreContract;

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
