package dev.streamgate.core.storage;

import java.util.List;
import java.util.Map;

import dev.streamgate.core.event.EventPosition;
import dev.streamgate.core.event.OutgoingEvent;

/**
 * Appends a mirrored topic's events together with the source offsets they lead up to, in
 * one Kafka transaction: after a crash the topic holds exactly the events of the source
 * records before the committed offsets.
 */
public interface MirrorWriter extends AutoCloseable {

	/**
	 * Where the last committed write left the source.
	 * @return the next offset to read of each source partition; empty for a new mirror
	 */
	Map<Integer, Long> committed();

	/**
	 * Appends events and moves the source offsets, all or nothing. Blocks until Kafka
	 * committed.
	 * @param events the events, in order, possibly none
	 * @param next the next offset to read of each source partition after them
	 * @return where each event landed
	 * @throws MirrorException when the write failed (nothing of it is visible), with
	 * {@link MirrorException#fenced()} when another writer of the topic took over
	 */
	List<EventPosition> append(List<OutgoingEvent> events, Map<Integer, Long> next);

	@Override
	void close();

}
