package dev.streamgate.core.event;

import java.time.Duration;

import jakarta.validation.constraints.Min;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How snapshot topics are checkpointed.
 *
 * @param checkpointEvery checkpoint after this many changes
 * @param checkpointInterval and at least this often while changes arrive; keep it far
 * below the shortest retention, so that the events after a checkpoint are always retained
 */
@Validated
@ConfigurationProperties("streamgate.snapshots")
public record EventProperties(@DefaultValue("100") @Min(1) int checkpointEvery,
		@DefaultValue("30s") Duration checkpointInterval) {

}
