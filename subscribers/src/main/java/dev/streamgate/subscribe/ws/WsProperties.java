package dev.streamgate.subscribe.ws;

import java.time.Duration;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * WebSocket subscribers ({@code streamgate.ws.*}, role sse).
 *
 * @param ping interval of the ping frames that keep idle connections open through proxies
 * @param clientQueue messages buffered per topic of a connection; a connection that falls
 * this far behind is closed (code 4008) and resumes with its cursors
 * @param maxTopics topics one connection may subscribe to at once
 * @param compression whether connections may negotiate permessage-deflate (RFC 7692) with
 * clients that offer it
 * @param compressionLevel the deflate level of compressed messages, 1 (fastest) to 9;
 * each event's message is compressed once per node for every connection
 */
@Validated
@ConfigurationProperties("streamgate.ws")
public record WsProperties(@DefaultValue("30s") Duration ping, @DefaultValue("1024") @Min(8) int clientQueue,
		@DefaultValue("100") @Min(1) @Max(10000) int maxTopics, @DefaultValue("true") boolean compression,
		@DefaultValue("1") @Min(1) @Max(9) int compressionLevel) {

}
