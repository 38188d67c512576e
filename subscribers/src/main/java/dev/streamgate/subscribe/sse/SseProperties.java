package dev.streamgate.subscribe.sse;

import java.time.Duration;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Server-Sent Events streams.
 *
 * @param heartbeat interval of the {@code : heartbeat} comment that keeps idle streams
 * open
 * @param retry reconnection delay sent to clients in the {@code retry:} line
 * @param clientQueue frames buffered per connection; a client that falls this far behind
 * is disconnected and resumes with its cursor
 * @param maxStreams streams one node serves at most; more are answered 429
 * @param maxStreamsPerClient streams one client address may hold open on one node
 * @param maxTopics topics one stream of several topics names at most
 * @param compressionLevel the deflate level of compressed streams
 * ({@code Accept-Encoding}), 1 (fastest) to 9 (smallest); each event is compressed once
 * per node at this level
 */
@Validated
@ConfigurationProperties("streamgate.sse")
public record SseProperties(@DefaultValue("15s") Duration heartbeat, @DefaultValue("3s") Duration retry,
		@DefaultValue("1024") @Min(8) int clientQueue, @DefaultValue("10000") @Min(1) int maxStreams,
		@DefaultValue("100") @Min(1) int maxStreamsPerClient, @DefaultValue("100") @Min(1) int maxTopics,
		@DefaultValue("1") @Min(1) @Max(9) int compressionLevel) {

}
