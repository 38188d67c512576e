package dev.streamgate.subscribe.follow;

import dev.streamgate.core.event.Cursor;

/**
 * Where a stream starts, from what the client sent.
 *
 * @param cursor the position to resume after, {@code null} for none
 * @param earliest whether to replay every retained event
 * @param unknown whether the client sent a cursor that is no position of this topic (one
 * of a topic of the same id, deleted since)
 */
public record Resume(Cursor cursor, boolean earliest, boolean unknown) {

	public static final Resume LIVE = new Resume(null, false, false);

	public static final Resume EARLIEST = new Resume(null, true, false);

	public static final Resume UNKNOWN = new Resume(null, false, true);

	public static Resume after(Cursor cursor) {
		return new Resume(cursor, false, false);
	}

}
