package dev.streamgate.diagnostics;

import java.time.Duration;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How the node asks its JVM to give back heap it no longer uses (G1 only, and only for
 * the settings the JVM's command line left at their defaults).
 *
 * @param returnIdleHeapAfter after this long without a garbage collection the JVM runs a
 * concurrent one and gives back the heap it does not need (G1's
 * {@code G1PeriodicGCInterval}); zero leaves the JVM's settings alone
 * @param longestIdleCollectionInterval once such a collection has given heap back, the
 * next come at longer intervals, up to this one, until the heap grows again (each marks
 * every live object); at most {@code returnIdleHeapAfter} keeps them at that interval
 * @param maxFreeHeapPercent at most this share of the committed heap stays free after
 * such a collection ({@code MaxHeapFreeRatio}; the JVM's default is 70)
 */
@Validated
@ConfigurationProperties("streamgate.jvm")
public record JvmProperties(@DefaultValue("60s") Duration returnIdleHeapAfter,
		@DefaultValue("16m") Duration longestIdleCollectionInterval,
		@DefaultValue("30") @Min(5) @Max(100) int maxFreeHeapPercent) {
}
