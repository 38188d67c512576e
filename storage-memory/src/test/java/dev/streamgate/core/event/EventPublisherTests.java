package dev.streamgate.core.event;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import jakarta.json.JsonStructure;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.topic.PayloadType;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.storage.memory.MemoryEventLog;
import dev.streamgate.storage.memory.MemorySnapshotStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The snapshot publisher over a log in memory: what it reads from the log to know the
 * current document, and that the log always replays to the documents published.
 */
class EventPublisherTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final MemoryEventLog log = new MemoryEventLog(Clock.systemUTC());

	private final MemorySnapshotStore snapshots = new MemorySnapshotStore();

	private final SnapshotDocuments documents = new SnapshotDocuments(this.log, this.snapshots);

	private final EventPublisher publisher = new EventPublisher(this.log, this.snapshots, this.documents, 1000,
			Duration.ofHours(1));

	private final Topic topic = new Topic("prices", null, PayloadType.SNAPSHOT, null, null, null, 1, null, null, null,
			null, null)
		.withDefaults();

	private static JsonStructure doc(String json) {
		return (JsonStructure) JsonPatches.read(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
	}

	/** The document the log rebuilds: what every subscriber ends up with. */
	private JsonStructure replayed() {
		SnapshotDocument document = SnapshotDocument.NONE;
		for (Event event : this.log.all(this.topic)) {
			document = document.apply(event);
		}
		return document.document();
	}

	@Test
	void theOnlyWriterAsksTheLogOnceAndThenPublishesFromWhatItKeeps() {
		for (String json : List.of("{\"eur\":1}", "{\"eur\":2}", "{\"eur\":2,\"usd\":1}", "{\"usd\":1}")) {
			StepVerifier.create(this.publisher.publishDocumentAsOnlyWriter(this.topic, doc(json)))
				.assertNext((publication) -> assertThat(publication.changed()).isTrue())
				.expectComplete()
				.verify(TIMEOUT);
		}
		assertThat(this.log.ends()).as("where the log ends, asked once when the document was loaded").isEqualTo(1);
		assertThat(this.log.reads()).isZero();
		assertThat(this.log.all(this.topic)).extracting(Event::type)
			.containsExactly(EventType.SNAPSHOT, EventType.PATCH, EventType.PATCH, EventType.PATCH);
		assertThat(replayed()).isEqualTo(doc("{\"usd\":1}"));
	}

	@Test
	void aWriteWhoseAcknowledgementWasLostMakesTheNextPublicationCatchUpFromTheLog() {
		this.publisher.publishDocumentAsOnlyWriter(this.topic, doc("{\"n\":1}")).block(TIMEOUT);
		this.log.loseNextAcknowledgement();
		StepVerifier.create(this.publisher.publishDocumentAsOnlyWriter(this.topic, doc("{\"n\":2}")))
			.expectError()
			.verify(TIMEOUT);
		// The failed write is in the log: the next patch must start from it, not from
		// {"n":1}, or subscribers would apply a patch to the wrong document.
		this.publisher.publishDocumentAsOnlyWriter(this.topic, doc("{\"n\":2,\"m\":3}")).block(TIMEOUT);
		assertThat(this.log.reads()).as("the document was read back from the log").isPositive();
		assertThat(replayed()).isEqualTo(doc("{\"n\":2,\"m\":3}"));
		// And it publishes nothing when the document is the one the lost write stored.
		StepVerifier.create(this.publisher.publishDocumentAsOnlyWriter(this.topic, doc("{\"n\":2,\"m\":3}")))
			.assertNext((publication) -> assertThat(publication.changed()).isFalse())
			.expectComplete()
			.verify(TIMEOUT);
	}

	@Test
	void aWriterThatIsNotTheOnlyOneChecksTheLogBeforeEveryPublication() {
		this.publisher.publishDocument(this.topic, doc("{\"a\":1}")).block(TIMEOUT);
		// Another node appends a patch the publisher never saw.
		this.log.append(this.topic, List.of(new OutgoingEvent(EventType.PATCH,
				"[{\"op\":\"add\",\"path\":\"/b\",\"value\":2}]".getBytes(java.nio.charset.StandardCharsets.UTF_8))))
			.block(TIMEOUT);
		this.publisher.publishDocument(this.topic, doc("{\"a\":1,\"b\":2,\"c\":3}")).block(TIMEOUT);
		assertThat(this.log.ends()).isEqualTo(2);
		assertThat(replayed()).isEqualTo(doc("{\"a\":1,\"b\":2,\"c\":3}"));
		// Forgotten (a poller starting on this node), the document is loaded again.
		this.publisher.forget(this.topic.id());
		this.publisher.publishDocumentAsOnlyWriter(this.topic, doc("{\"c\":3}")).block(TIMEOUT);
		assertThat(this.log.ends()).isEqualTo(3);
		assertThat(replayed()).isEqualTo(doc("{\"c\":3}"));
	}

	@Test
	void aReaderOfThisNodesPublicationTakesTheDocumentItProducedInsteadOfApplyingThePatch() {
		this.publisher.publishDocumentAsOnlyWriter(this.topic, doc("{\"a\":1}")).block(TIMEOUT);
		JsonStructure second = doc("{\"a\":2,\"b\":[1,2]}");
		this.publisher.publishDocumentAsOnlyWriter(this.topic, second).block(TIMEOUT);
		List<Event> events = this.log.all(this.topic);
		SnapshotDocument atFirst = SnapshotDocument.NONE.apply(events.get(0));
		SnapshotDocument next = this.documents.apply(this.topic, atFirst, events.get(1));
		assertThat(next.document()).as("the publisher's own document, not a copy").isSameAs(second);
		assertThat(next.offset()).isEqualTo(events.get(1).offset());
		assertThat(next).isEqualTo(atFirst.apply(events.get(1)));
	}

	@Test
	void aChangeIsAppliedAsBeforeOnAnyOtherDocumentOrIncarnation() {
		this.publisher.publishDocumentAsOnlyWriter(this.topic, doc("{\"a\":1}")).block(TIMEOUT);
		this.publisher.publishDocumentAsOnlyWriter(this.topic, doc("{\"a\":2}")).block(TIMEOUT);
		Event patch = this.log.all(this.topic).get(1);
		// A reader whose document is at another offset: the patch was not computed from
		// it, so the publisher's result is not its result.
		SnapshotDocument elsewhere = new SnapshotDocument(patch.offset() - 5, doc("{\"a\":7,\"z\":0}"));
		assertThat(this.documents.apply(this.topic, elsewhere, patch).document()).isEqualTo(doc("{\"a\":2,\"z\":0}"));
		// A topic of the same id created again: another log, even for the same bytes.
		Topic again = this.topic.withTimestamps(java.time.Instant.parse("2030-01-01T00:00:00Z"), null);
		SnapshotDocument sameOffset = new SnapshotDocument(patch.offset() - 1, doc("{\"a\":1,\"y\":0}"));
		assertThat(this.documents.apply(again, sameOffset, patch).document()).isEqualTo(doc("{\"a\":2,\"y\":0}"));
		// Unknown documents stay unknown until a snapshot.
		SnapshotDocument unknown = new SnapshotDocument(patch.offset() - 1, null);
		assertThat(this.documents.apply(this.topic, unknown, patch).document()).isNull();
	}

	@Test
	void everyDocumentOfABatchIsSharedInOrder() {
		List<byte[]> batch = List.of("{\"n\":1}", "{\"n\":1}", "{\"n\":2}", "{\"n\":3}")
			.stream()
			.map((json) -> json.getBytes(java.nio.charset.StandardCharsets.UTF_8))
			.toList();
		this.publisher.publish(this.topic, batch).block(TIMEOUT);
		List<Event> events = this.log.all(this.topic);
		assertThat(events).extracting(Event::type)
			.containsExactly(EventType.SNAPSHOT, EventType.PATCH, EventType.PATCH);
		// Two readers: documents parsed from the events would be two instances each.
		SnapshotDocument one = SnapshotDocument.NONE;
		SnapshotDocument other = SnapshotDocument.NONE;
		SnapshotDocument parsed = SnapshotDocument.NONE;
		for (Event event : events) {
			one = this.documents.apply(this.topic, one, event);
			other = this.documents.apply(this.topic, other, event);
			parsed = parsed.apply(event);
			assertThat(one).isEqualTo(parsed);
			assertThat(one.document()).isSameAs(other.document());
		}
		assertThat(one.document()).isEqualTo(doc("{\"n\":3}"));
	}

}
