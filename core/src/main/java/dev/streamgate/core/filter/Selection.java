package dev.streamgate.core.filter;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventType;

/**
 * Which of a topic's events a subscriber receives: those of the types it asked for that
 * its filter accepts. Only published events are selected; problems (and, on the channels,
 * heartbeats) reach every subscriber.
 */
public final class Selection {

	/** Every event. */
	public static final Selection ALL = new Selection(null, null);

	private final EventTypes types;

	private final EventFilter filter;

	private Selection(EventTypes types, EventFilter filter) {
		this.types = types;
		this.filter = filter;
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
				(filter != null) ? EventFilter.compile(filter, filterPointer) : null);
	}

	/**
	 * Whether every event is selected.
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
