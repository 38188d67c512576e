package dev.streamgate.diagnostics;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * What the node watches in itself.
 *
 * @param blockedEventLoop how long an HTTP event loop (one that serves the node's
 * requests, or one of its outgoing connections: webhooks, polls, token requests) may stay
 * busy with one task before its stack is logged (every connection of that loop waits
 * meanwhile); zero turns the watch off
 */
@Validated
@ConfigurationProperties("streamgate.diagnostics")
public record DiagnosticsProperties(@DefaultValue("2s") Duration blockedEventLoop) {
}
