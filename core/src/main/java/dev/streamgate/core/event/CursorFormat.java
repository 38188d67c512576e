package dev.streamgate.core.event;

import java.util.Optional;

import dev.streamgate.core.topic.Topic;

/**
 * The one text form of a topic's cursors that clients see: the topic's incarnation, a
 * colon, and the offsets ({@code mhx3k2a1:41} on a one-partition topic,
 * {@code mhx3k2a1:41.-1.7} on three). A publish answers it, a stream sends it as each
 * event's {@code id}, a webhook delivery carries it, and each of them accepts it back.
 * <p>
 * The incarnation (the topic's creation time in base 36) tells a topic from a deleted one
 * of the same id: the offsets of a re-created topic start again at 0, so without it an
 * old cursor would silently skip the new topic's first events and a webhook-id would
 * repeat one a receiver already saw.
 */
public final class CursorFormat {

	private static final char SEPARATOR = ':';

	private final String incarnation;

	private final int partitions;

	private CursorFormat(String incarnation, int partitions) {
		this.incarnation = incarnation;
		this.partitions = partitions;
	}

	/**
	 * The cursor format of a stored topic.
	 * @param topic the topic, with its creation time
	 * @return its format
	 */
	public static CursorFormat of(Topic topic) {
		return new CursorFormat(topic.incarnation(), topic.partitions());
	}

	/**
	 * A cursor as clients see it.
	 * @param cursor the cursor
	 * @return its text
	 */
	public String format(Cursor cursor) {
		return this.incarnation + SEPARATOR + cursor;
	}

	/**
	 * The cursor just after one appended event: resuming from it delivers the events
	 * after that one on its partition (and, on a topic of several partitions, all the
	 * retained events of the others).
	 * @param position where the event landed
	 * @return the cursor's text
	 */
	public String format(EventPosition position) {
		return format(Cursor.beforeAll(this.partitions).after(position.partition(), position.offset()));
	}

	/**
	 * Reads a cursor a client sent back.
	 * @param text the cursor's text
	 * @return the cursor, or empty when it is a cursor of another incarnation of the
	 * topic (one deleted since) or of none
	 * @throws IllegalArgumentException when the text is no cursor at all
	 */
	public Optional<Cursor> parse(String text) {
		String trimmed = text.trim();
		int separator = trimmed.indexOf(SEPARATOR);
		String offsets = (separator >= 0) ? trimmed.substring(separator + 1) : trimmed;
		Cursor cursor = Cursor.parse(offsets, this.partitions);
		if (separator < 0 || !trimmed.substring(0, separator).equals(this.incarnation)) {
			return Optional.empty();
		}
		return Optional.of(cursor);
	}

}
