package dev.streamgate.storage.kafka;

import java.nio.file.Path;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The in-process broker of standalone mode.
 *
 * @param dataDir broker storage, formatted on first start and reused after
 * @param port the broker's client port; 0 picks a free one
 */
@Validated
@ConfigurationProperties("streamgate.embedded-kafka")
public record EmbeddedKafkaProperties(@DefaultValue("./data/kafka") Path dataDir,
		@DefaultValue("9092") @Min(0) @Max(65535) int port) {

}
