package dev.streamgate.publish.ingest;

import java.time.Duration;

import jakarta.validation.constraints.Min;
import org.hibernate.validator.constraints.time.DurationMax;

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
 * @param idempotencyKeys how many answers are remembered at most (oldest forgotten first)
 */
@Validated
@ConfigurationProperties("streamgate.ingest")
public record IngestProperties(@DefaultValue("1MB") DataSize maxPayload,
		@DefaultValue("24h") @DurationMax(days = 7) Duration idempotencyWindow,
		@DefaultValue("100000") @Min(1) long idempotencyKeys) {

}
