package dev.streamgate.storage.memory;

import dev.streamgate.core.storage.WebhookStore;
import dev.streamgate.core.storage.WebhookStoreContract;

/**
 * The webhook store contract in memory ({@code streamgate.storage=memory}).
 */
class MemoryWebhookStoreContractTests extends WebhookStoreContract {

	private final MemoryWebhookStore store = new MemoryWebhookStore();

	@Override
	protected WebhookStore store() {
		return this.store;
	}

}
