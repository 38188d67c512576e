package dev.streamgate.core.event;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.storage.EventLog;
import dev.streamgate.core.storage.SnapshotStore.Checkpoint;
import dev.streamgate.core.storage.SnapshotStore;
import dev.streamgate.core.support.SerialQueue;
import dev.streamgate.core.topic.PayloadType;
import dev.streamgate.core.topic.Topic;

/**
 * Publishes to a topic: event topics take each publication as one event; snapshot topics
 * take whole documents and append the first as a {@code snapshot} and each later one as
 * the RFC 6902 patch from its predecessor, nothing when it did not change.
 * <p>
 * Publications to one snapshot topic are serialized on this node. Before diffing, the
 * node catches up with events that other nodes appended, so its document is the topic's
 * current one. Every {@code checkpointEvery} changes or {@code checkpointInterval} the
 * document is checkpointed, so that a restarted node rebuilds it without reading the
 * topic from its beginning.
 */
public class EventPublisher {

	private static final Log logger = LogFactory.getLog(EventPublisher.class);

	/**
	 * Claims a publication makes before it gives up: another node took the topic over
	 * between this node's claim and its write each time.
	 */
	private static final int OWNER_ATTEMPTS = 5;

	private final EventLog log;

	private final SnapshotStore snapshots;

	private final int checkpointEvery;

	private final Duration checkpointInterval;

	private final Clock clock;

	private final SerialQueue<String> serial = new SerialQueue<>();

	private final Map<String, Tracked> tracked = new ConcurrentHashMap<>();

	private final SnapshotDocuments documents;

	public EventPublisher(EventLog log, SnapshotStore snapshots, SnapshotDocuments documents, int checkpointEvery,
			Duration checkpointInterval) {
		this(log, snapshots, documents, checkpointEvery, checkpointInterval, Clock.systemUTC());
	}

	EventPublisher(EventLog log, SnapshotStore snapshots, SnapshotDocuments documents, int checkpointEvery,
			Duration checkpointInterval, Clock clock) {
		this.log = log;
		this.snapshots = snapshots;
		this.documents = documents;
		this.checkpointEvery = checkpointEvery;
		this.checkpointInterval = checkpointInterval;
		this.clock = clock;
	}

	/**
	 * Publishes, all or nothing.
	 * @param topic the topic
	 * @param payloads the publications, each exactly one JSON value, already checked
	 * @return what was appended
	 */
	public Mono<Publication> publish(Topic topic, List<byte[]> payloads) {
		return publish(topic, payloads, EventAttributes.NONE);
	}

	/**
	 * Publishes events, each with its own attributes, all or nothing.
	 * @param topic an event topic
	 * @param events the events, their data checked
	 * @return what was appended
	 */
	public Mono<Publication> publishEvents(Topic topic, List<OutgoingEvent> events) {
		if (topic.partitions() == 1) {
			return this.log.append(topic, events)
				.map((positions) -> new Publication(positions, true, last(topic, positions)));
		}
		// The answer's id must name a position on every partition, not only the ones
		// written: resuming from it must skip what was acknowledged before this
		// publication on the others too. Where the log ended, asked while the append is
		// under way, is such a position: what was acknowledged before the append began
		// lies before it, and what is published after the answer lies after it.
		Mono<Optional<Cursor>> end = this.log.end(topic).map(Optional::of).onErrorResume((ex) -> {
			logger.debug("No end of " + topic.id() + " for a publication's id: " + ex.getMessage());
			return Mono.just(Optional.empty());
		});
		return Mono.zip(this.log.append(topic, events), end)
			.map((appended) -> new Publication(appended.getT1(), true,
					appended.getT2()
						.map((before) -> CursorFormat.of(topic).format(after(before, appended.getT1())))
						.orElseGet(() -> last(topic, appended.getT1()))));
	}

	/**
	 * A cursor at the given positions on the partitions they are on, and at another
	 * cursor on the others.
	 */
	static Cursor after(Cursor elsewhere, List<EventPosition> positions) {
		long[] last = new long[Math.max(elsewhere.partitions(), positions.get(0).partitions())];
		for (int p = 0; p < last.length; p++) {
			last[p] = elsewhere.last(p);
		}
		Map<Integer, Long> written = new HashMap<>();
		positions.forEach((position) -> written.merge(position.partition(), position.offset(), Math::max));
		written.forEach((partition, offset) -> last[partition] = offset);
		return Cursor.of(last);
	}

	/**
	 * Publishes, all or nothing.
	 * @param topic the topic
	 * @param payloads the publications, each exactly one JSON value, already checked
	 * @param attributes the type and key of every publication (event topics)
	 * @return what was appended
	 */
	public Mono<Publication> publish(Topic topic, List<byte[]> payloads, EventAttributes attributes) {
		if (topic.payloadType() == PayloadType.EVENT) {
			return publishEvents(topic,
					payloads.stream().map((data) -> new OutgoingEvent(EventType.EVENT, data, attributes)).toList());
		}
		List<JsonStructure> documents = payloads.stream().map(EventPublisher::document).toList();
		return this.serial.run(topic.id(), () -> publishAsOwner(topic, documents, OWNER_ATTEMPTS));
	}

	/**
	 * Publishes documents as the topic's claimed writer: any node may publish to it, and
	 * each patch must be made from the document the others left. A claim that another
	 * node took over meanwhile writes nothing, and the publication is made again from the
	 * document as that node left it.
	 */
	private Mono<Publication> publishAsOwner(Topic topic, List<JsonStructure> documents, int attempts) {
		return this.log.claim(topic)
			.then(Mono.defer(() -> current(topic)))
			.flatMap((tracked) -> publishDocuments(topic, tracked, documents,
					(events) -> this.log.appendAsOwner(topic, events)))
			.onErrorResume(WriterFencedException.class, (ex) -> {
				this.tracked.remove(topic.id());
				if (attempts <= 1) {
					return Mono.error(new StreamgateException(ProblemType.CONFLICT,
							"Other nodes published to '" + topic.id() + "' at the same time, " + OWNER_ATTEMPTS
									+ " times in a row; nothing was published, retry",
							ex));
				}
				// A pause of a random length, so that two nodes that keep claiming the
				// topic from each other fall out of step.
				return Mono.delay(Duration.ofMillis(ThreadLocalRandom.current().nextLong(5, 60)))
					.then(Mono.defer(() -> publishAsOwner(topic, documents, attempts - 1)));
			});
	}

	/**
	 * Publishes one whole document to a snapshot topic: a snapshot when it has none yet,
	 * the patch from the current document otherwise, nothing when it did not change.
	 * @param topic a snapshot topic
	 * @param document the new document
	 * @return what was appended
	 */
	public Mono<Publication> publishDocument(Topic topic, JsonStructure document) {
		return this.serial.run(topic.id(), () -> publishAsOwner(topic, List.of(document), OWNER_ATTEMPTS));
	}

	/**
	 * Publishes one whole document for a topic's only writer: the poller that holds the
	 * topic's lease (http-poller topics take no other publications, and {@code Pollers}
	 * forgets the document when a poller starts). While every write since the document
	 * was loaded was acknowledged, the document this node keeps is the topic's current
	 * one, so it publishes without asking Kafka where the log ends and without reading
	 * the records since, which on shared storage are mostly other topics'. A failed write
	 * drops the kept document, and the next publication loads it again.
	 * @param topic an http-poller snapshot topic polled by this node
	 * @param document the new document
	 * @return what was appended
	 */
	public Mono<Publication> publishDocumentAsOnlyWriter(Topic topic, JsonStructure document) {
		return publishDocumentsAsOnlyWriter(topic, List.of(document), (events) -> this.log.append(topic, events));
	}

	/**
	 * Publishes whole documents for a topic's only writer, as
	 * {@link #publishDocumentAsOnlyWriter} does, appending the events they make through
	 * the writer's own append (a mirror's, which commits its source offsets with them).
	 * @param topic a snapshot topic this node is the only writer of
	 * @param documents the new documents, in order
	 * @param append appends the events, all or none
	 * @return what was appended
	 */
	public Mono<Publication> publishDocumentsAsOnlyWriter(Topic topic, List<JsonStructure> documents,
			Function<List<OutgoingEvent>, Mono<List<EventPosition>>> append) {
		return this.serial.run(topic.id(), () -> {
			Tracked known = this.tracked.get(topic.id());
			Mono<Tracked> current = (known != null) ? Mono.just(known) : current(topic);
			return current.flatMap((tracked) -> publishDocuments(topic, tracked, documents, append));
		});
	}

	/**
	 * Appends a {@code problem} event: the topic's publisher failed. Subscribers receive
	 * it in order with the other events; a snapshot topic's document does not change.
	 * @param topic the topic
	 * @param problem the problem JSON
	 * @return where it was appended
	 */
	public Mono<Publication> publishError(Topic topic, byte[] problem) {
		Mono<Publication> append = this.log.append(topic, List.of(new OutgoingEvent(EventType.PROBLEM, problem)))
			.map((positions) -> new Publication(positions, true, last(topic, positions)));
		return (topic.payloadType() == PayloadType.EVENT) ? append : this.serial.run(topic.id(), () -> append);
	}

	/**
	 * The newest {@code event} record of an event topic, across its partitions.
	 * @param topic an event topic
	 * @return the event, or empty when the topic has none
	 */
	public Mono<Event> lastEvent(Topic topic) {
		return this.log.newest(topic, (event) -> event.type() == EventType.EVENT);
	}

	/**
	 * Forgets what this node knows of a topic, when it is deleted or its only writer
	 * starts.
	 * @param topicId the topic id
	 */
	public void forget(String topicId) {
		this.tracked.remove(topicId);
		this.documents.forget(topicId);
	}

	private Mono<Tracked> current(Topic topic) {
		Tracked known = this.tracked.get(topic.id());
		// A log that ends before what this node knew was deleted and created again: start
		// over.
		Mono<SnapshotDocument> fresh = (known == null) ? this.documents.load(topic)
				: this.log.end(topic)
					.flatMap((end) -> (end.last(0) < known.document().offset()) ? this.documents.load(topic)
							: this.documents.catchUp(topic, known.document(), end));
		return fresh.map((document) -> {
			// A topic without a checkpoint gets one with its next publication.
			Instant checkpointedAt = (known != null) ? known.checkpointedAt()
					: this.snapshots.has(topic.id()) ? this.clock.instant() : Instant.EPOCH;
			Tracked tracked = (known != null && known.document() == document) ? known
					: new Tracked(document, (known != null) ? known.changesSinceCheckpoint() : 0, checkpointedAt);
			this.tracked.put(topic.id(), tracked);
			return tracked;
		});
	}

	private Mono<Publication> publishDocuments(Topic topic, Tracked tracked, List<JsonStructure> documents,
			Function<List<OutgoingEvent>, Mono<List<EventPosition>>> append) {
		// Diffing large documents is CPU work: keep it off the event loops.
		return Mono.fromCallable(() -> changes(tracked.document().document(), documents))
			.subscribeOn(Schedulers.parallel())
			.flatMap((changes) -> {
				if (changes.isEmpty()) {
					String position = CursorFormat.of(topic).format(Cursor.of(tracked.document().offset()));
					return Mono.just(new Publication(List.of(), false, position));
				}
				this.documents.published(topic, tracked.document(), changes);
				List<OutgoingEvent> events = changes.stream()
					.map((change) -> new OutgoingEvent(change.type(), change.data()))
					.toList();
				JsonStructure latest = documents.get(documents.size() - 1);
				return append.apply(events).map((positions) -> {
					long offset = positions.get(positions.size() - 1).offset();
					Tracked next = tracked.advance(new SnapshotDocument(offset, latest), events.size());
					this.tracked.put(topic.id(), maybeCheckpoint(topic, next));
					return new Publication(positions, true, last(topic, positions));
				})
					// The write may have reached the log all the same: what this node
					// knows is no longer the current document.
					.doOnError((ex) -> this.tracked.remove(topic.id()));
			});
	}

	/**
	 * The events that turn the current document into each of the new ones in turn, with
	 * the document each leads to.
	 */
	private static List<PublishedChanges.Change> changes(JsonStructure current, List<JsonStructure> documents) {
		List<PublishedChanges.Change> changes = new ArrayList<>();
		JsonStructure previous = current;
		for (JsonStructure next : documents) {
			if (previous == null) {
				changes.add(new PublishedChanges.Change(EventType.SNAPSHOT, JsonPatches.write(next), next));
			}
			else {
				JsonPatches.writeDiff(previous, next)
					.ifPresent((patch) -> changes.add(new PublishedChanges.Change(EventType.PATCH, patch, next)));
			}
			previous = next;
		}
		return changes;
	}

	private Tracked maybeCheckpoint(Topic topic, Tracked tracked) {
		Instant now = this.clock.instant();
		boolean due = tracked.changesSinceCheckpoint() >= this.checkpointEvery
				|| !now.isBefore(tracked.checkpointedAt().plus(this.checkpointInterval));
		if (!due) {
			return tracked;
		}
		SnapshotDocument document = tracked.document();
		this.snapshots.save(topic.id(), new Checkpoint(document.offset(), document.document(), topic.incarnation()))
			.subscribe(null, (ex) -> logger.warn("Checkpoint of " + topic.id() + " failed: " + ex.getMessage()));
		return new Tracked(document, 0, now);
	}

	private static String last(Topic topic, List<EventPosition> positions) {
		return CursorFormat.of(topic).format(positions.get(positions.size() - 1));
	}

	private static JsonStructure document(byte[] payload) {
		JsonValue value = JsonPatches.read(payload);
		if (value instanceof JsonStructure structure) {
			return structure;
		}
		throw new StreamgateException(ProblemType.INVALID_PUBLICATION,
				"A snapshot topic takes whole documents: a JSON object or array, not a "
						+ value.getValueType().name().toLowerCase());
	}

	/**
	 * What a publication appended.
	 *
	 * @param positions where each appended event landed; empty when nothing changed
	 * @param changed false when a snapshot topic's document was unchanged
	 * @param id the position of the last event, or of the current document when unchanged
	 */
	public record Publication(List<EventPosition> positions, boolean changed, String id) {
	}

	private record Tracked(SnapshotDocument document, int changesSinceCheckpoint, Instant checkpointedAt) {

		Tracked advance(SnapshotDocument next, int changes) {
			return new Tracked(next, this.changesSinceCheckpoint + changes, this.checkpointedAt);
		}

	}

}
