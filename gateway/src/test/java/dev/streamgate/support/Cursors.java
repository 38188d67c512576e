package dev.streamgate.support;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cursors of a topic for tests that resume at a chosen offset: the topic's incarnation,
 * read from the {@code events.position} of its status, and the offsets.
 */
public final class Cursors {

	private static final Pattern INCARNATION = Pattern.compile("\"position\"\\s*:\\s*\"([0-9a-z]+):");

	private Cursors() {
	}

	/**
	 * A cursor of a topic.
	 * @param status the topic's status document ({@code GET
	 * /api/v1/topics/{topicId}/status})
	 * @param offsets the offsets, dot-separated
	 * @return the cursor
	 */
	public static String at(String status, String offsets) {
		Matcher incarnation = INCARNATION.matcher(status);
		assertThat(incarnation.find()).as("incarnation in %s", status).isTrue();
		return incarnation.group(1) + ":" + offsets;
	}

	/**
	 * The offsets part of a cursor.
	 * @param cursor the cursor
	 * @return its offsets
	 */
	public static String offsets(String cursor) {
		return cursor.substring(cursor.indexOf(':') + 1);
	}

}
