package dev.streamgate.core.event;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.json.JsonStructure;

import dev.streamgate.core.topic.Topic;

/**
 * The documents this node's last publication to each snapshot topic produced, so that
 * this node's readers of the topic (SSE hubs, webhook dispatchers) take the document the
 * publisher already holds instead of parsing the change it wrote and applying it again:
 * for a polled document of 50 KB, most of the event tail's work.
 * <p>
 * A reader's document after an event is taken from here only when the event is one this
 * node wrote (the same type and bytes) on top of the same document: the one at the same
 * offset of the topic's log, or the document the change before it in the same publication
 * produced. Anything else (another node's change, a reader behind or ahead) is applied as
 * before. Documents are immutable, so readers share them.
 */
final class PublishedChanges {

	/**
	 * By topic id: the changes of the topic's last publication on this node, in order.
	 */
	private final Map<String, Publication> topics = new ConcurrentHashMap<>();

	/**
	 * Remembers a publication before it is appended.
	 * @param topic the topic
	 * @param base the document the first change was computed from, with its offset
	 * @param changes each appended event with the document it leads to
	 */
	void remember(Topic topic, SnapshotDocument base, List<Change> changes) {
		this.topics.put(topic.id(), new Publication(topic.incarnation(), base.offset(), changes));
	}

	/**
	 * Forgets a topic's publication: the topic was deleted, or another node writes it
	 * now.
	 * @param topicId the topic id
	 */
	void forget(String topicId) {
		this.topics.remove(topicId);
	}

	/**
	 * The document after one more event of a snapshot topic.
	 * @param topic the topic
	 * @param current the reader's document before the event
	 * @param event the event
	 * @return the next document: this node's publication's when the event is its, else
	 * {@code current.apply(event)}
	 */
	SnapshotDocument apply(Topic topic, SnapshotDocument current, Event event) {
		Publication publication = this.topics.get(topic.id());
		JsonStructure known = (publication != null) ? publication.after(topic, current, event) : null;
		return (known != null) ? new SnapshotDocument(event.offset(), known) : current.apply(event);
	}

	/**
	 * One appended event and the document it leads to.
	 *
	 * @param type snapshot or patch
	 * @param data the event's bytes
	 * @param document the document after it
	 */
	record Change(EventType type, byte[] data, JsonStructure document) {
	}

	private record Publication(String incarnation, long baseOffset, List<Change> changes) {

		JsonStructure after(Topic topic, SnapshotDocument current, Event event) {
			if (!this.incarnation.equals(topic.incarnation())) {
				return null;
			}
			for (int i = 0; i < this.changes.size(); i++) {
				Change change = this.changes.get(i);
				if (change.type() != event.type() || !Arrays.equals(change.data(), event.data())) {
					continue;
				}
				// A snapshot does not depend on what came before; a patch gives this
				// document only on top of the one it was computed from.
				boolean sameBase = (i == 0) ? current.offset() == this.baseOffset
						: current.document() == this.changes.get(i - 1).document();
				if (change.type() == EventType.SNAPSHOT || (current.document() != null && sameBase)) {
					return change.document();
				}
			}
			return null;
		}

	}

}
