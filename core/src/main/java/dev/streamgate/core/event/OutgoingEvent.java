package dev.streamgate.core.event;

/**
 * A record to append to a topic's events.
 *
 * @param type what the record is
 * @param data the UTF-8 JSON payload
 * @param attributes the publisher's type and key
 */
public record OutgoingEvent(EventType type, byte[] data, EventAttributes attributes) {

	/**
	 * A record without attributes.
	 * @param type what the record is
	 * @param data the UTF-8 JSON payload
	 */
	public OutgoingEvent(EventType type, byte[] data) {
		this(type, data, EventAttributes.NONE);
	}

}
