package dev.streamgate.storage.memory;

import java.time.Clock;
import java.time.Duration;

import dev.streamgate.core.storage.IdempotencyStore;
import dev.streamgate.core.storage.IdempotencyStoreContract;

/**
 * The Idempotency-Key store contract in memory ({@code streamgate.storage=memory}).
 */
class MemoryIdempotencyStoreContractTests extends IdempotencyStoreContract {

	private final MemoryIdempotencyStore store = new MemoryIdempotencyStore(Duration.ofMinutes(10), Clock.systemUTC(),
			1 << 20);

	@Override
	protected IdempotencyStore store() {
		return this.store;
	}

}
