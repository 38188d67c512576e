package dev.streamgate.storage.memory;

import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.storage.TopicStoreContract;

/**
 * The topic store contract in memory ({@code streamgate.storage=memory}).
 */
class MemoryTopicStoreContractTests extends TopicStoreContract {

	private final MemoryTopicStore store = new MemoryTopicStore();

	@Override
	protected TopicStore store() {
		return this.store;
	}

}
