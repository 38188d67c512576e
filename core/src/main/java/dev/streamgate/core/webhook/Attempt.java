package dev.streamgate.core.webhook;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One delivery attempt of one webhook.
 *
 * @param webhookId the webhook
 * @param at when the attempt was sent
 * @param eventId the delivery's {@code webhook-id}, the same on every retry
 * @param type the delivery type ({@code snapshot}, {@code patch}, {@code event},
 * {@code problem}, {@code ping})
 * @param attempt the attempt number, from 1
 * @param statusCode the answer's HTTP status, {@code null} when none came
 * @param durationMs how long the attempt took
 * @param error why it failed, {@code null} on success
 * @param outcome {@code delivered}, {@code retrying}, {@code failed} (given up),
 * {@code disabled} (the webhook was disabled)
 * @param responseBody the first 1 KiB of the answer's body, when it had one
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Attempt(String webhookId, Instant at, String eventId, String type, int attempt, Integer statusCode,
		long durationMs, String error, String outcome, String responseBody) {

}
