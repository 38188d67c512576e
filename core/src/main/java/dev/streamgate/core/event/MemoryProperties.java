package dev.streamgate.core.event;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.lang.Nullable;
import org.springframework.util.unit.DataSize;

/**
 * What a node keeps in memory, all topics together.
 *
 * @param recentEvents the bytes of recent events (SSE hubs and webhook feeds) a node
 * keeps for resumes without a Kafka read; unset: an eighth of the maximum heap
 */
@ConfigurationProperties("streamgate.memory")
public record MemoryProperties(@Nullable DataSize recentEvents) {

	/**
	 * The budget of recent events.
	 * @return the bytes
	 */
	public long recentEventsBytes() {
		return (this.recentEvents != null) ? this.recentEvents.toBytes() : Runtime.getRuntime().maxMemory() / 8;
	}

}
