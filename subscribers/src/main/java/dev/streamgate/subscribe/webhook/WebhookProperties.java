package dev.streamgate.subscribe.webhook;

import java.time.Duration;
import java.util.List;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How webhooks are delivered ({@code streamgate.webhook.*}).
 *
 * @param retrySchedule the delays between the attempts of one delivery; an event is given
 * up after one attempt more than there are delays
 * @param timeout how long one attempt may take, connection included
 * @param disableAfter how long a webhook may fail without one success before it is
 * disabled
 * @param maxConnections the most connections a node keeps open to one endpoint host (host
 * and port): Reactor Netty pools connections per remote address
 * @param maxPerTopic the most webhooks one topic may have
 * @param batch events a webhook takes from its topic at a time (then delivered one by one
 * in order); read from Kafka, also no more than about a mebibyte of them
 * ({@code TopicFollower.READ_BYTES})
 */
@Validated
@ConfigurationProperties("streamgate.webhook")
public record WebhookProperties(@DefaultValue( {
		"5s", "5m", "30m", "2h", "5h", "10h", "10h" }) @NotEmpty List<Duration> retrySchedule,
		@DefaultValue("15s") Duration timeout, @DefaultValue("5d") Duration disableAfter,
		@DefaultValue("1000") @Min(1) int maxConnections, @DefaultValue("1000") @Min(1) @Max(100000) int maxPerTopic,
		@DefaultValue("200") @Min(1) int batch){

}
