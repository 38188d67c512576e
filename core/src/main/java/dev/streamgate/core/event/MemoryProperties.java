package dev.streamgate.core.event;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.lang.Nullable;
import org.springframework.util.unit.DataSize;

/**
 * What a node keeps in memory, all topics together.
 *
 * @param recentEvents the bytes of recent events (SSE hubs and webhook feeds) a node
 * keeps for resumes without a Kafka read; unset: an eighth of the maximum heap, at most
 * {@value #DEFAULT_CAP_MIB} MiB. Bounded: the JVM's default heap is a quarter of the
 * machine's memory, and a cache that grew with it (768 MiB on 24 GiB) kept a 3,000-client
 * node's heap at 760 MiB after GC; 384 MiB kept it at 380. Not smaller: at 128 MiB (each
 * event counts twice, see {@code streamgate.follow.recent-bytes}) a node held about 5 s
 * of webhook-13's 12.5 MB a second, so while its JVM was cold and deliveries slow, most
 * of its 500 webhooks fell behind memory and read their gaps from Kafka, and the node
 * refused publishes; at 384 MiB five runs of six refused none
 * @param clientBuffer the bytes one connection (a stream, a WebSocket) may hold that it
 * has not read yet; beyond it the connection is cut off and resumes with its cursor. A
 * connection that holds nothing always takes the next event, whatever its size
 * @param clientBuffers the bytes all connections together may hold; a connection that is
 * behind and would go past it is cut off. Unset: an eighth of the maximum heap, at most
 * {@value #DEFAULT_CLIENT_CAP_MIB} MiB
 * @param topicEvents with {@code streamgate.storage=memory}, the bytes of events one
 * topic keeps at most (each event counted with about 256 bytes beside its data); its
 * oldest go first, as its retention makes them go
 */
@ConfigurationProperties("streamgate.memory")
public record MemoryProperties(@Nullable DataSize recentEvents, @DefaultValue("8MB") DataSize clientBuffer,
		@Nullable DataSize clientBuffers, @DefaultValue("64MB") DataSize topicEvents, @Nullable DataSize storedEvents) {

	/** The most the default budget of connections' buffers takes, in MiB. */
	public static final long DEFAULT_CLIENT_CAP_MIB = 256;

	/**
	 * The bytes all connections may hold together.
	 * @return the bytes
	 */
	public long clientBuffersBytes() {
		return (this.clientBuffers != null) ? this.clientBuffers.toBytes()
				: Math.min(Runtime.getRuntime().maxMemory() / 8, DEFAULT_CLIENT_CAP_MIB * 1024 * 1024);
	}

	/** The most the default budget takes, in MiB. */
	public static final long DEFAULT_CAP_MIB = 384;

	/**
	 * The bytes of events a node without Kafka keeps in all.
	 * @return the bytes
	 */
	public long storedEventsBytes() {
		return (this.storedEvents != null) ? this.storedEvents.toBytes() : Runtime.getRuntime().maxMemory() / 4;
	}

	/**
	 * The budget of recent events.
	 * @return the bytes
	 */
	public long recentEventsBytes() {
		return (this.recentEvents != null) ? this.recentEvents.toBytes()
				: Math.min(Runtime.getRuntime().maxMemory() / 8, DEFAULT_CAP_MIB * 1024 * 1024);
	}

}
