package dev.streamgate.subscribe.follow;

import java.util.HashMap;
import java.util.Map;

import jakarta.json.JsonArray;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;

import dev.streamgate.core.event.EventType;
import dev.streamgate.core.patch.DocumentView;
import dev.streamgate.core.patch.JsonPatches;

/**
 * The views of a snapshot topic's document that its subscribers on this node asked for
 * ({@code pointer=/prices/EURUSD}), each with the part of the document it shows now.
 * After each event the follower asks what changed: a view whose part did not change sends
 * nothing, one whose part changed sends the patch between its two values, made once for
 * all its subscribers. Used under the follower's lock.
 */
final class DocumentViews {

	private final Map<String, State> byPointer = new HashMap<>();

	/**
	 * A subscriber joins a view.
	 * @param view the view
	 * @param topicId the topic
	 * @param id the cursor the topic stands at
	 * @param document the document, or {@code null} while it is unknown
	 * @return the first message: the part as it is, or {@code null} while the document is
	 * unknown
	 */
	Followed join(DocumentView view, String topicId, String id, JsonStructure document) {
		State state = this.byPointer.computeIfAbsent(view.pointer(),
				(pointer) -> new State(view, (document != null) ? view.select(document) : null));
		state.subscribers++;
		if (state.value == null) {
			return null;
		}
		if (state.snapshot == null) {
			state.snapshot = Followed.note(topicId, id, EventType.SNAPSHOT, JsonPatches.write(state.value));
		}
		return state.snapshot;
	}

	/**
	 * A subscriber leaves a view; the last one forgets it.
	 * @param pointer the view's pointer
	 */
	void leave(String pointer) {
		State state = this.byPointer.get(pointer);
		if (state != null && --state.subscribers <= 0) {
			this.byPointer.remove(pointer);
		}
	}

	/**
	 * What each view sends for an event once it was applied to the document.
	 * @param followed the event, as whole-document subscribers get it
	 * @param document the document after it, or {@code null} while it is unknown
	 * @return each view's change by pointer; a view that sends nothing has none
	 */
	Map<String, Change> changed(Followed followed, JsonStructure document) {
		if (this.byPointer.isEmpty()) {
			return Map.of();
		}
		Map<String, Change> changes = new HashMap<>();
		for (Map.Entry<String, State> entry : this.byPointer.entrySet()) {
			State state = entry.getValue();
			state.snapshot = null;
			if (followed.type() == EventType.PROBLEM) {
				changes.put(entry.getKey(), Change.toAll(followed));
				continue;
			}
			JsonValue before = state.value;
			JsonValue after = (document != null) ? state.view.select(document) : null;
			state.value = after;
			if (after == null) {
				// Unknown until the next snapshot: nothing to send.
				continue;
			}
			if (before == null) {
				changes.put(entry.getKey(),
						Change.toAll(followed.derived(EventType.SNAPSHOT, JsonPatches.write(after))));
				continue;
			}
			JsonArray patch = DocumentView.change(before, after);
			if (patch != null) {
				changes.put(entry.getKey(),
						Change.patched(followed.derived(EventType.PATCH, JsonPatches.write(patch)), after));
			}
		}
		return changes;
	}

	/** One view and what it shows. */
	private static final class State {

		private final DocumentView view;

		/** The part of the document it shows, {@code null} while that is unknown. */
		private JsonValue value;

		/**
		 * The part as a snapshot at the topic's position, made for joiners on first use.
		 */
		private Followed snapshot;

		private int subscribers;

		State(DocumentView view, JsonValue value) {
			this.view = view;
			this.value = value;
		}

	}

	/**
	 * What a view sends for one event: to its snapshot-patch subscribers a patch, to its
	 * snapshot-only ones the part whole (made on first use: immutable, and two event
	 * loops racing make equal ones); a problem or a part that became known goes to both
	 * as it is.
	 */
	static final class Change {

		private final Followed patch;

		private final JsonValue value;

		private Followed snapshot;

		private Change(Followed patch, JsonValue value, Followed snapshot) {
			this.patch = patch;
			this.value = value;
			this.snapshot = snapshot;
		}

		static Change toAll(Followed followed) {
			return new Change(followed, null, followed);
		}

		static Change patched(Followed patch, JsonValue value) {
			return new Change(patch, value, null);
		}

		Followed patch() {
			return this.patch;
		}

		Followed snapshot() {
			Followed known = this.snapshot;
			if (known == null) {
				known = this.patch.derived(EventType.SNAPSHOT, JsonPatches.write(this.value));
				this.snapshot = known;
			}
			return known;
		}

	}

}
