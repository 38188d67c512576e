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
 * event by event ({@code src/test/browser/compressed.test.mjs}); its WebSocket, which
 * offers permessage-deflate by itself, gets every message compressed and whole
 * ({@code src/test/browser/websocket-deflate.test.mjs}).
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

	@Test
	void aBrowserWebSocketNegotiatesPermessageDeflateAndReadsEveryMessage() throws Exception {
		try (RunningGateway gateway = RunningGateway.start(GatewayKafka.arguments(TestKafka.uniquePrefix()))) {
			gateway.post("/api/v1/topics", "{\"id\":\"deflated-socket\"}", 201);
			String text = BrowserScript.run("websocket-deflate.test.mjs",
					Map.of("BASE_URL", gateway.baseUrl(), "TOPIC", "deflated-socket"), Map.of());
			assertThat(text).contains("ok - permessage-deflate negotiated")
				.contains("ok - the refused subscribe's problem arrived compressed and whole")
				.contains("ok - five events of 18 KB arrived whole and in order");
			// Compressed by the gateway (an event's message once for every connection),
			// not
			// by Netty for each connection: the five events and the problem.
			assertThat(gateway.get("/actuator/prometheus"))
				.containsPattern("streamgate_ws_compressions_total(\\{[^}]*\\})? ([6-9]|[1-9][0-9])");
		}
	}

}
