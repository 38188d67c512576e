package dev.streamgate.core.event;

/**
 * A record to append to a topic's events.
 *
 * @param type what the record is
 * @param data the UTF-8 JSON payload
 */
public record OutgoingEvent(EventType type, byte[] data) {

}
