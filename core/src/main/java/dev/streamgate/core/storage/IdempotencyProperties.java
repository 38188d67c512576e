package dev.streamgate.core.storage;

import java.time.Duration;

import org.hibernate.validator.constraints.time.DurationMax;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * How long and in how much memory the ingest remembers its answers to
 * {@code Idempotency-Key}s, whichever storage keeps them.
 *
 * @param idempotencyWindow how long an {@code Idempotency-Key} answer is remembered
 * (Kafka keeps answers 7 days at most)
 * @param idempotencyMemory the most memory the index of Idempotency-Key answers takes on
 * an ingest node: 27 to 53 bytes a key answered within the window (over Kafka the answers
 * stay in Kafka); when full, the oldest keys are forgotten before their window has
 * passed, with a warning
 */
@Validated
@ConfigurationProperties("streamgate.ingest")
public record IdempotencyProperties(@DefaultValue("24h") @DurationMax(days = 7) Duration idempotencyWindow,
		@DefaultValue("128MB") DataSize idempotencyMemory) {

}
