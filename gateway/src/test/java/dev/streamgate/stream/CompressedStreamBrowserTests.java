package dev.streamgate.stream;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.streamgate.support.BrowserScript;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chromium's EventSource, which asks for gzip by itself, receives a compressed stream
 * event by event ({@code src/test/browser/compressed.test.mjs}).
 */
class CompressedStreamBrowserTests {

	@Test
	void aBrowserReceivesACompressedStreamEventByEvent() throws Exception {
		try (RunningGateway gateway = RunningGateway.start(GatewayKafka.arguments(TestKafka.uniquePrefix()))) {
			gateway.post("/api/v1/topics", "{\"id\":\"compressed-browser\"}", 201);
			String text = BrowserScript.run("compressed.test.mjs",
					Map.of("BASE_URL", gateway.baseUrl(), "TOPIC", "compressed-browser"), Map.of());
			assertThat(text).contains("ok - the stream came gzip-compressed")
				.contains("ok - each event arrived before the next was published");
		}
	}

}
