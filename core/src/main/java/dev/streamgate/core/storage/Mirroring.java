package dev.streamgate.core.storage;

import dev.streamgate.core.topic.Topic;

/**
 * The Kafka side of {@code kafka} publishers (implemented behind the Kafka boundary): a
 * reader of the source topic, and a writer that appends what was mirrored together with
 * how far the source was read, all or nothing.
 */
public interface Mirroring {

	/**
	 * Opens the writer of a topic, fencing every earlier writer of it: a former owner's
	 * unfinished write is aborted, and its later writes fail. Blocks until Kafka
	 * answered.
	 * @param topic a kafka publisher's topic
	 * @return the writer, which knows where the last committed write left the source
	 * @throws MirrorException when Kafka does not answer
	 */
	MirrorWriter writer(Topic topic);

	/**
	 * Opens a reader of a topic's source. Blocks until the source answered.
	 * @param topic a kafka publisher's topic
	 * @param next the next offset to read of each source partition; partitions it does
	 * not name start as the topic's {@code startFrom} says when it names none (a new
	 * mirror), from their beginning otherwise (partitions added since)
	 * @return the reader
	 * @throws MirrorException when the source cannot be read
	 */
	MirrorSource source(Topic topic, java.util.Map<Integer, Long> next);

}
