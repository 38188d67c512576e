package dev.streamgate.subscribe.follow;

import java.time.Duration;

import jakarta.validation.constraints.Min;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * How this node follows the topics its subscribers read ({@code streamgate.follow.*}),
 * whatever their channel.
 *
 * @param recentEvents events kept per topic so that most resumes, and webhooks that keep
 * up, need no Kafka read
 * @param recentBytes bytes of those events kept per topic at most (each counts its data
 * twice: once as is, once for the encoding a resume that reads it makes; the encodings
 * made for live subscribers are not kept); {@code streamgate.memory.recent-events} bounds
 * all topics together
 * @param linger how long a topic is still followed after its last reader left, so that a
 * reconnecting subscriber finds its recent events
 */
@Validated
@ConfigurationProperties("streamgate.follow")
public record FollowProperties(@DefaultValue("1024") @Min(0) int recentEvents,
		@DefaultValue("16MB") DataSize recentBytes, @DefaultValue("30s") Duration linger) {

}
