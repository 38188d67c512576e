package dev.streamgate.core.event;

import java.util.Map;

/**
 * What a publisher said of an event besides its data: its type (e.g.
 * {@code order.created}), its key, and the headers it came with. Subscribers select
 * events by them (types, filters); none of them changes where or in which order events
 * are kept, except that events of one key stay on one partition.
 *
 * @param type the event type, or {@code null} for none
 * @param key the event's key, or {@code null} for none
 * @param headers the record's headers other than streamgate's own, by name (the last
 * value of a name that comes more than once)
 */
public record EventAttributes(String type, String key, Map<String, String> headers) {

	/** No type, no key, no header. */
	public static final EventAttributes NONE = new EventAttributes(null, null, Map.of());

	public EventAttributes {
		headers = Map.copyOf(headers);
	}

	/**
	 * Attributes with a type and a key only.
	 * @param type the type, or {@code null}
	 * @param key the key, or {@code null}
	 * @return the attributes
	 */
	public static EventAttributes of(String type, String key) {
		return (type == null && key == null) ? NONE : new EventAttributes(type, key, Map.of());
	}

}
