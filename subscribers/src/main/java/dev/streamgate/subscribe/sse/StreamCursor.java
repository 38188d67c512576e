package dev.streamgate.subscribe.sse;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.topic.TopicValidator;

/**
 * The id of an event on a stream of several topics: one cursor per topic of the stream,
 * {@code orders@mhx3k2a1:41,prices@mhx3k2a2:7}. Resuming from it gives, on every topic,
 * exactly the events after its own cursor, whichever topic the last event came from.
 * <p>
 * Topic ids never contain {@code @} or {@code ,}, and cursors neither; both may stand in
 * a query string as they are.
 */
final class StreamCursor {

	private static final char AT = '@';

	private static final char SEPARATOR = ',';

	private StreamCursor() {
	}

	/**
	 * Writes the cursors of a stream's topics.
	 * @param topicIds the topics, in the stream's order
	 * @param cursors each topic's cursor text, in the same order; {@code null} for a
	 * topic with no position yet, left out
	 * @return the stream's cursor
	 */
	static String format(List<String> topicIds, String[] cursors) {
		StringBuilder out = new StringBuilder(topicIds.size() * 32);
		for (int i = 0; i < cursors.length; i++) {
			if (cursors[i] == null) {
				continue;
			}
			if (!out.isEmpty()) {
				out.append(SEPARATOR);
			}
			out.append(topicIds.get(i)).append(AT).append(cursors[i]);
		}
		return out.toString();
	}

	/**
	 * Reads a stream's cursor a client sent back.
	 * @param text the cursor, or {@code null}
	 * @return each topic's cursor text by topic id; empty for none
	 * @throws StreamgateException (400) when the text is no cursor of a stream of several
	 * topics
	 */
	static Map<String, String> parse(String text) {
		Map<String, String> cursors = new HashMap<>();
		if (text == null || text.isBlank()) {
			return cursors;
		}
		for (String part : text.trim().split(String.valueOf(SEPARATOR), -1)) {
			int at = part.indexOf(AT);
			String topicId = (at > 0) ? part.substring(0, at).trim() : "";
			String cursor = (at > 0) ? part.substring(at + 1).trim() : "";
			if (!TopicValidator.ID.matcher(topicId).matches() || cursor.isEmpty()
					|| cursors.put(topicId, cursor) != null) {
				throw new StreamgateException(ProblemType.INVALID_CURSOR, "'" + text
						+ "' is no cursor of a stream of several topics (topic@cursor, separated by commas); send back an id the stream sent, or earliest");
			}
		}
		return cursors;
	}

}
