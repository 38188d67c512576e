package dev.streamgate.publish.poller;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

import dev.streamgate.core.egress.EgressGuard;
import dev.streamgate.core.egress.EgressProperties;
import dev.streamgate.core.topic.Publisher;
import dev.streamgate.support.HeldServerLoops;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SourceClient} against a source served by the JDK's own HTTP server, so that the
 * source runs on no Netty event loop of the test's.
 */
class SourceClientTests {

	private final EgressGuard guard = new EgressGuard(new EgressProperties(List.of("127.0.0.0/8"), true));

	private HttpServer source;

	@BeforeEach
	void startSource() throws IOException {
		this.source = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.source.createContext("/prices", (exchange) -> {
			byte[] body = "{\"eur\":1.08}".getBytes(StandardCharsets.UTF_8);
			exchange.getResponseHeaders().set("Content-Type", "application/json");
			exchange.getResponseHeaders().set("ETag", "\"v1\"");
			exchange.sendResponseHeaders(200, body.length);
			exchange.getResponseBody().write(body);
			exchange.close();
		});
		this.source.start();
	}

	@AfterEach
	void stop() {
		this.source.stop(0);
		this.guard.close();
	}

	@Test
	void aPollIsMadeWhileEveryEventLoopOfTheNodesHttpServerIsBusy() {
		SourceClient client = new SourceClient(this.guard,
				new PollerProperties(DataSize.ofMegabytes(1), 5, Duration.ofSeconds(5), 10), "test", null);
		// A poll waiting behind the server's loops would time out.
		try (HeldServerLoops held = HeldServerLoops.hold()) {
			SourceClient.Fetch fetch = client.fetch(publisher(), SourceClient.Validators.NONE)
				.block(Duration.ofSeconds(10));
			assertThat(fetch.body()).asString(StandardCharsets.UTF_8).isEqualTo("{\"eur\":1.08}");
			assertThat(fetch.validators().etag()).isEqualTo("\"v1\"");
		}
	}

	private Publisher.HttpPoller publisher() {
		return new Publisher.HttpPoller(
				URI.create("http://localhost:" + this.source.getAddress().getPort() + "/prices"), null, null, null,
				Duration.ofSeconds(5), null, null, null)
			.withDefaults();
	}

}
