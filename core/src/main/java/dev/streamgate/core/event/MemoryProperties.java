package dev.streamgate.core.event;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.lang.Nullable;
import org.springframework.util.unit.DataSize;

/**
 * What a node keeps in memory, all topics together.
 *
 * @param recentEvents the bytes of recent events (SSE hubs and webhook feeds) a node
 * keeps for resumes without a Kafka read; unset: an eighth of the maximum heap, at most
 * {@value #DEFAULT_CAP_MIB} MiB (the JVM's default heap is a quarter of the machine's
 * memory, and a cache that grows with it kept a 3,000-client node's heap at 760 MiB after
 * GC)
 */
@ConfigurationProperties("streamgate.memory")
public record MemoryProperties(@Nullable DataSize recentEvents) {

	/** The most the default budget takes, in MiB. */
	public static final long DEFAULT_CAP_MIB = 128;

	/**
	 * The budget of recent events.
	 * @return the bytes
	 */
	public long recentEventsBytes() {
		return (this.recentEvents != null) ? this.recentEvents.toBytes()
				: Math.min(Runtime.getRuntime().maxMemory() / 8, DEFAULT_CAP_MIB * 1024 * 1024);
	}

}
