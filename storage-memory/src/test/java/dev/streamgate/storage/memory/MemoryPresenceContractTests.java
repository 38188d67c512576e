package dev.streamgate.storage.memory;

import dev.streamgate.core.storage.Presence;
import dev.streamgate.core.storage.PresenceContract;

/**
 * The presence contract in memory ({@code streamgate.storage=memory}).
 */
class MemoryPresenceContractTests extends PresenceContract {

	private final MemoryPresence presence = new MemoryPresence();

	@Override
	protected Presence presence() {
		return this.presence;
	}

}
