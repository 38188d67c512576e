package dev.streamgate.core.event;

import java.time.Instant;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * Live figures of a topic's events.
 *
 * @param partitions partitions of the events topic
 * @param position the cursor after the last event, at which a new subscriber starts
 * @param retained events still retained; {@code null} for a topic in shared storage,
 * where counting them would mean reading the shared log
 * @param lastEventTime when the last event was published, {@code null} if none was
 */
public record EventLogStatus(int partitions, String position, @Schema(types = {
		"integer", "null" }, description = "null for a topic in shared storage") Long retained,
		@Schema(types = { "string", "null" }, format = "date-time",
				description = "null while the topic has no event") Instant lastEventTime){

}
