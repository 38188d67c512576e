package dev.streamgate.core.event;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;

import dev.streamgate.core.storage.EventLog;
import dev.streamgate.core.storage.SnapshotStore;
import dev.streamgate.core.topic.Topic;

/**
 * Reads the documents of snapshot topics: rebuilds one from the newest checkpoint and the
 * events after it, and moves a document forward by one event. Readers (SSE hubs, webhook
 * dispatchers, the publisher catching up) all go through it, so that a change this node
 * published is taken as the document the publisher produced rather than parsed and
 * applied again ({@link PublishedChanges}).
 */
public class SnapshotDocuments {

	private static final Log logger = LogFactory.getLog(SnapshotDocuments.class);

	private final EventLog log;

	private final SnapshotStore snapshots;

	private final PublishedChanges published = new PublishedChanges();

	public SnapshotDocuments(EventLog log, SnapshotStore snapshots) {
		this.log = log;
		this.snapshots = snapshots;
	}

	/**
	 * The current document of a snapshot topic.
	 * @param topic the topic
	 * @return the document
	 */
	public Mono<SnapshotDocument> load(Topic topic) {
		return this.log.end(topic).flatMap((end) -> load(topic, end));
	}

	/**
	 * The document of a snapshot topic as it was after a given event, rebuilt from the
	 * newest checkpoint not past it.
	 * @param topic the topic
	 * @param until the cursor of the last event to apply
	 * @return the document
	 */
	public Mono<SnapshotDocument> load(Topic topic, Cursor until) {
		SnapshotDocument checkpointed = this.snapshots.get(topic.id())
			.filter((checkpoint) -> checkpoint.belongsTo(topic) && checkpoint.offset() <= until.last(0))
			.map((checkpoint) -> new SnapshotDocument(checkpoint.offset(), checkpoint.document()))
			.orElse(SnapshotDocument.NONE);
		return this.log.start(topic).flatMap((start) -> {
			if (checkpointed.offset() < start.last(0)) {
				// Retention deleted events after the checkpoint: the document cannot be
				// rebuilt exactly. It is unknown until the next publication, which will
				// be a snapshot.
				logger.warn("Events of " + topic.id() + " after its checkpoint " + checkpointed.offset()
						+ " are gone; its document is unknown until the next publication");
				return Mono.just(new SnapshotDocument(until.last(0), null));
			}
			return catchUp(topic, checkpointed, until);
		});
	}

	/**
	 * A document moved forward to a later position of the topic's log.
	 * @param topic the topic
	 * @param from the document
	 * @param end the cursor of the last event to apply
	 * @return the document after the events up to {@code end}
	 */
	public Mono<SnapshotDocument> catchUp(Topic topic, SnapshotDocument from, Cursor end) {
		if (end.last(0) <= from.offset()) {
			return Mono.just(from);
		}
		return this.log.read(topic, Cursor.of(from.offset()), end)
			.reduce(from, (document, event) -> apply(topic, document, event));
	}

	/**
	 * The document of a snapshot topic after one more event. When the event is one this
	 * node published on top of the same document, the document it produced is taken as it
	 * is rather than parsed and applied again.
	 * @param topic the topic
	 * @param current the document before the event
	 * @param event the event
	 * @return the document after it
	 */
	public SnapshotDocument apply(Topic topic, SnapshotDocument current, Event event) {
		return this.published.apply(topic, current, event);
	}

	/**
	 * Forgets what this node published to a topic, when it is deleted.
	 * @param topicId the topic id
	 */
	public void forget(String topicId) {
		this.published.forget(topicId);
	}

	/** The publisher tells what it is about to append, before it appends it. */
	void published(Topic topic, SnapshotDocument base, List<PublishedChanges.Change> changes) {
		this.published.remember(topic, base, changes);
	}

}
