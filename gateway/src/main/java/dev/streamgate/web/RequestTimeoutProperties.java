package dev.streamgate.web;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How long a client may take to send a request's headers and body, so that a client
 * trickling bytes cannot hold a connection forever. Open streams are not affected: the
 * limits end with the request.
 *
 * @param headerTimeout longest time from a request's first byte, or from a new
 * connection, to the end of its headers
 * @param readTimeout longest pause between two reads of a body
 * @param requestTimeout longest time to read a whole body
 */
@Validated
@ConfigurationProperties("streamgate.http")
public record RequestTimeoutProperties(@DefaultValue("10s") Duration headerTimeout,
		@DefaultValue("10s") Duration readTimeout, @DefaultValue("60s") Duration requestTimeout) {
}
