package dev.streamgate.core.event;

import jakarta.json.JsonArray;
import jakarta.json.JsonStructure;

import dev.streamgate.core.patch.JsonPatches;

/**
 * A snapshot topic's document as it stands after one event.
 *
 * @param offset the offset of the last event applied, {@code -1} before the first
 * @param document the document, {@code null} before the first publication
 */
public record SnapshotDocument(long offset, JsonStructure document) {

	/** The state of a topic nothing was published to. */
	public static final SnapshotDocument NONE = new SnapshotDocument(-1, null);

	/**
	 * The document after one more event of the topic.
	 * @param event a snapshot or patch event
	 * @return the next state
	 */
	public SnapshotDocument apply(Event event) {
		return switch (event.type()) {
			case SNAPSHOT -> new SnapshotDocument(event.offset(), (JsonStructure) JsonPatches.readStored(event.data()));
			case PATCH -> {
				if (this.document == null) {
					// The document is unknown (its base was lost): it stays unknown until
					// a snapshot.
					yield new SnapshotDocument(event.offset(), null);
				}
				JsonArray patch = JsonPatches.readStored(event.data()).asJsonArray();
				yield new SnapshotDocument(event.offset(), JsonPatches.apply(this.document, patch));
			}
			default -> new SnapshotDocument(event.offset(), this.document);
		};
	}

}
