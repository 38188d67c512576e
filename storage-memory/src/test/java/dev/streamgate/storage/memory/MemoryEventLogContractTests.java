package dev.streamgate.storage.memory;

import java.time.Clock;

import dev.streamgate.core.storage.EventLog;
import dev.streamgate.core.storage.EventLogContract;
import dev.streamgate.core.storage.EventTail;

/**
 * The event log contract in memory ({@code streamgate.storage=memory}).
 */
class MemoryEventLogContractTests extends EventLogContract {

	private final MemoryEventLog log = new MemoryEventLog(Clock.systemUTC(), 1024 * 1024, 64 * 1024 * 1024);

	@Override
	protected EventLog log() {
		return this.log;
	}

	@Override
	protected EventTail tail() {
		return this.log;
	}

}
