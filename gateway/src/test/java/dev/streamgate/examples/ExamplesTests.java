package dev.streamgate.examples;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.streamgate.support.BrowserScript;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.ProcessLines;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The runnable examples ({@code examples/}) against a real gateway: the webhook receiver
 * verifies every delivery with the official Standard Webhooks package and refuses a
 * forged one; the dashboard page, in headless Chromium, shows a snapshot topic's document
 * as it changes.
 */
class ExamplesTests {

	private static final Path EXAMPLES = Path.of("..", "examples");

	private static RunningGateway gateway;

	@BeforeAll
	static void start() {
		List<String> args = new ArrayList<>(List.of(GatewayKafka.arguments(TestKafka.uniquePrefix())));
		args.add("--streamgate.egress.allowed-cidrs=127.0.0.1/32");
		gateway = RunningGateway.start(args.toArray(String[]::new));
	}

	@AfterAll
	static void stop() {
		gateway.close();
	}

	@Test
	void theWebhookReceiverVerifiesEachDeliveryAndRefusesAForgedOne() throws Exception {
		Path receiver = EXAMPLES.resolve("webhook-receiver");
		assertThat(receiver.resolve("node_modules").resolve("standardwebhooks"))
			.as("standardwebhooks, installed by src/test/browser/ensure during the build")
			.isDirectory();
		byte[] key = new byte[32];
		new SecureRandom().nextBytes(key);
		String secret = "whsec_" + Base64.getEncoder().encodeToString(key);
		ProcessBuilder node = new ProcessBuilder("node", "server.mjs").directory(receiver.toFile())
			.redirectErrorStream(true);
		node.environment().putAll(Map.of("WEBHOOK_SECRET", secret, "PORT", "0"));
		Process process = node.start();
		List<String> lines = ProcessLines.of(process);
		try {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> lines.stream().anyMatch((line) -> line.startsWith("listening on ")));
			String port = lines.stream()
				.filter((line) -> line.startsWith("listening on "))
				.findFirst()
				.orElseThrow()
				.substring(13);
			gateway.post("/api/v1/topics", "{\"id\":\"example-orders\"}", 201);
			gateway.post("/api/v1/topics/example-orders/webhooks",
					"{\"url\":\"http://127.0.0.1:" + port + "/\",\"secret\":\"" + secret + "\"}", 201);
			for (int order = 1; order <= 3; order++) {
				gateway.post("/api/v1/publish/example-orders", "{\"order\":" + order + "}", 202);
			}
			await().atMost(Duration.ofSeconds(30))
				.until(() -> lines.stream().filter((line) -> line.startsWith("verified ")).count() >= 3);
			assertThat(lines.stream().filter((line) -> line.startsWith("verified ")))
				.allSatisfy((line) -> assertThat(line).contains(" event example-orders "))
				.extracting((line) -> line.substring(line.lastIndexOf(' ') + 1))
				.containsExactly("{\"order\":1}", "{\"order\":2}", "{\"order\":3}");

			HttpResponse<String> forged = HttpClient.newHttpClient()
				.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
					.header("webhook-id", "msg_forged")
					.header("webhook-timestamp", String.valueOf(System.currentTimeMillis() / 1000))
					.header("webhook-signature", "v1,bm90IGEgc2lnbmF0dXJl")
					.POST(HttpRequest.BodyPublishers.ofString("{\"type\":\"event\",\"data\":{\"order\":99}}"))
					.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(forged.statusCode()).isEqualTo(400);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> lines.stream().anyMatch((line) -> line.startsWith("refused msg_forged")));
		}
		finally {
			process.destroy();
			process.waitFor(10, TimeUnit.SECONDS);
		}
	}

	@Test
	void theDashboardShowsTheDocumentAsItChanges() throws Exception {
		assertThat(Path.of("..", "clients", "js", "dist", "index.js"))
			.as("the client built by clients/js (./mvnw -pl clients/js compile)")
			.exists();
		gateway.post("/api/v1/topics", "{\"id\":\"example-prices\",\"payloadType\":\"snapshot\"}", 201);
		String text = BrowserScript.run("dashboard.test.mjs", Map.of("BASE_URL", gateway.baseUrl(), "TOPIC",
				"example-prices", "REPOSITORY", Path.of("..").toAbsolutePath().normalize().toString()), Map.of());
		assertThat(text).contains("ok - the dashboard shows the last document");
	}

}
