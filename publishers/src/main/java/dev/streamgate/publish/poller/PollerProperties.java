package dev.streamgate.publish.poller;

import java.time.Duration;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * How pollers fetch their sources.
 *
 * @param maxBody the largest answer a poll accepts
 * @param maxRedirects redirects followed per poll before it fails
 * @param connectTimeout longest wait for a TCP connection (the topic's timeout still
 * bounds the whole poll)
 * @param maxConnections the most pooled connections the pollers of this node keep open to
 * one source host (host and port): Reactor Netty pools connections per remote address
 */
@Validated
@ConfigurationProperties("streamgate.poller")
public record PollerProperties(@DefaultValue("1MB") DataSize maxBody,
		@DefaultValue("5") @Min(0) @Max(20) int maxRedirects, @DefaultValue("10s") Duration connectTimeout,
		@DefaultValue("500") @Min(1) int maxConnections) {
}
