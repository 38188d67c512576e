package dev.streamgate.core.storage;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Reads the records of a kafka publisher's source topic, every partition, committed
 * records only (a source producer's aborted transactions are never mirrored).
 */
public interface MirrorSource extends AutoCloseable {

	/**
	 * The next records, in order on each partition.
	 * @param timeout how long to wait when none is there
	 * @return the records, possibly none
	 * @throws MirrorException when the source refuses to be read
	 */
	List<SourceRecord> poll(Duration timeout);

	/**
	 * The next offset to read of each source partition.
	 * @return the offsets
	 */
	Map<Integer, Long> positions();

	/**
	 * How many records of the source are not read yet, asking the source's brokers: it
	 * fails when they cannot be reached.
	 * @return the records behind, over all partitions
	 * @throws MirrorException when the source does not answer
	 */
	long lag();

	@Override
	void close();

}
