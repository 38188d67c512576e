package dev.streamgate.publish.ingest;

import java.time.Duration;

import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

import dev.streamgate.core.storage.IdempotencyProperties;

/**
 * The HTTP POST ingest (its Idempotency-Key memory: {@link IdempotencyProperties}).
 *
 * @param maxPayload largest accepted request body, a batch included
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
public record IngestProperties(@DefaultValue("1MB") DataSize maxPayload, @DefaultValue("16MB") DataSize maxInFlight,
		@DefaultValue("0s") @DurationMin(millis = 0) @DurationMax(minutes = 1) Duration maxWait) {

}
