package dev.streamgate.core.filter;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.patch.DocumentView;

/**
 * What a subscriber receives of a topic: of an event topic, the events of the types it
 * asked for that its filter accepts; of a snapshot topic, the whole document or a view of
 * one part of it. Only published events are selected; problems (and, on the channels,
 * heartbeats) reach every subscriber.
 */
public final class Selection {

	/** Every event, the whole document. */
	public static final Selection ALL = new Selection(null, null, null);

	private final EventTypes types;

	private final EventFilter filter;

	private final DocumentView view;

	private Selection(EventTypes types, EventFilter filter, DocumentView view) {
		this.types = types;
		this.filter = filter;
		this.view = view;
	}

	/**
	 * A subscriber's selection.
	 * @param types the types and patterns asked for, or {@code null} for all
	 * @param filter a CEL expression, or {@code null} for none
	 * @param typesPointer where the types are in the request
	 * @param filterPointer where the filter is in the request
	 * @return the selection
	 * @throws dev.streamgate.core.problem.StreamgateException (400) for a bad type
	 * pattern or filter
	 */
	public static Selection of(List<String> types, String filter, String typesPointer, String filterPointer) {
		if (types == null && filter == null) {
			return ALL;
		}
		return new Selection((types != null) ? EventTypes.of(types, typesPointer) : null,
				(filter != null) ? EventFilter.compile(filter, filterPointer) : null, null);
	}

	/**
	 * This selection with a view of the document.
	 * @param newView the view, or {@code null} for the whole document
	 * @return the selection
	 */
	public Selection withView(DocumentView newView) {
		if (newView == null && this.view == null) {
			return this;
		}
		return new Selection(this.types, this.filter, newView);
	}

	/**
	 * The part of a snapshot topic's document the subscriber receives.
	 * @return the view, or {@code null} for the whole document
	 */
	public DocumentView view() {
		return this.view;
	}

	/**
	 * Whether every event is selected (a view selects no events, it shows part of each
	 * document).
	 * @return true without types and filter
	 */
	public boolean selectsAll() {
		return this.types == null && this.filter == null;
	}

	/**
	 * The types asked for.
	 * @return the patterns, or {@code null} for all
	 */
	public List<String> types() {
		return (this.types != null) ? this.types.patterns() : null;
	}

	/**
	 * The filter.
	 * @return the expression, or {@code null} for none
	 */
	public String filter() {
		return (this.filter != null) ? this.filter.expression() : null;
	}

	/**
	 * Whether an event goes to the subscriber.
	 * @param event the event
	 * @param variables what the filter sees of it, made at most once for all filters
	 * @return true when it is selected, or is no published event
	 */
	public boolean accepts(Event event, Supplier<Map<String, Object>> variables) {
		if (event == null || event.type() != EventType.EVENT) {
			return true;
		}
		if (this.types != null && !this.types.matches(event.attributes().type())) {
			return false;
		}
		return this.filter == null || this.filter.matches(event, variables);
	}

}
