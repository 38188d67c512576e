package dev.streamgate.mercure;

import java.util.List;

/**
 * One subscription's choice and rights.
 *
 * @param selectors the selectors it asked for
 * @param granted the selectors of the private updates its token grants, or {@code null}
 */
record Subscriber(List<TopicSelector> selectors, List<TopicSelector> granted) {

	boolean receives(Update update) {
		return receives(update.topics(), update.isPrivate());
	}

	boolean receives(Update.Heading heading) {
		return receives(heading.topics(), heading.isPrivate());
	}

	private boolean receives(List<String> topics, boolean isPrivate) {
		if (!TopicSelector.anyMatches(this.selectors, topics)) {
			return false;
		}
		return !isPrivate || (this.granted != null && TopicSelector.anyMatches(this.granted, topics));
	}

}
