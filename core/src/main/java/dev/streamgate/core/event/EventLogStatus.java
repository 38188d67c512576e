package dev.streamgate.core.event;

import java.time.Instant;

/**
 * Live figures of a topic's events.
 *
 * @param partitions partitions of the events topic
 * @param position the cursor after the last event, at which a new subscriber starts
 * @param retained events still retained
 * @param lastEventTime when the last event was published, {@code null} if none was
 */
public record EventLogStatus(int partitions, String position, long retained, Instant lastEventTime) {

}
