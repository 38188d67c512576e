package dev.streamgate.publish.ingest;

import java.time.Duration;

import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * The HTTP POST ingest.
 *
 * @param maxPayload largest accepted request body, a batch included
 * @param idempotencyWindow how long an {@code Idempotency-Key} answer is remembered
 * (Kafka keeps answers 7 days at most)
 * @param idempotencyMemory the most memory the index of Idempotency-Key answers takes on
 * an ingest node: 27 to 53 bytes a key answered within the window (the answers stay in
 * Kafka); when full, the oldest keys are forgotten before their window has passed, with a
 * warning
 * @param maxInFlight bytes of publications a node holds at once between reading a request
 * and Kafka's acknowledgement (a body of unknown length counts as {@code maxPayload}).
 * Kept under the producer's {@code buffer.memory} (32 MiB), so that a send never waits
 * for room in it
 * @param maxWait how long a publication beyond {@code maxInFlight} waits for room, in
 * order of arrival and with its body unread, before it is answered {@code 503 overloaded}
 * with {@code Retry-After}; as many bytes may wait as may be in flight, more are refused
 * at once. Zero (the default) refuses at once: with a wait, a cold node with a small
 * bound refused more publishes, not fewer
 */
@Validated
@ConfigurationProperties("streamgate.ingest")
public record IngestProperties(@DefaultValue("1MB") DataSize maxPayload,
		@DefaultValue("24h") @DurationMax(days = 7) Duration idempotencyWindow,
		@DefaultValue("128MB") DataSize idempotencyMemory, @DefaultValue("16MB") DataSize maxInFlight,
		@DefaultValue("0s") @DurationMin(millis = 0) @DurationMax(minutes = 1) Duration maxWait) {

}
