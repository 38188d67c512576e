package dev.streamgate.console;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.TestKafka;
import dev.streamgate.support.Tokens;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console in a real browser: headless Chromium (Debian's chromium package) driven by
 * Playwright ({@code src/test/browser/console.test.mjs}) against a gateway with security
 * on. Screenshots of each page are kept in {@code target/console-screenshots}.
 */
class ConsoleBrowserTests {

	private static final String SECRET = "console-test-secret-of-at-least-32-bytes";

	@Test
	void theConsoleManagesTopicsWatchesStreamsAndRegistersWebhooksInABrowser() throws Exception {
		Path script = Path.of("src", "test", "browser", "console.test.mjs");
		assertThat(Path.of("src", "test", "browser", "node_modules", "playwright-core"))
			.as("playwright-core, installed by src/test/browser/ensure during the build")
			.isDirectory();
		List<String> args = new ArrayList<>(List.of(GatewayKafka.arguments(TestKafka.uniquePrefix())));
		// The console is tested as it is used: with security on and a token.
		args.remove("--streamgate.security.enabled=false");
		args.add("--streamgate.security.jwt.secret=" + SECRET);
		// The test's webhook endpoint listens on 127.0.0.1.
		args.add("--streamgate.egress.allowed-cidrs=127.0.0.1/32");
		try (RunningGateway gateway = RunningGateway.start(args.toArray(String[]::new))) {
			String token = Tokens.hs256(SECRET, Map.of("admin", true), Instant.now().plus(Duration.ofHours(1)));
			Path output = Files.createTempFile("console-test", ".log");
			ProcessBuilder node = new ProcessBuilder("node", script.toString()).redirectErrorStream(true)
				.redirectOutput(output.toFile());
			node.environment().put("BASE_URL", gateway.baseUrl());
			node.environment().put("TOKEN", token);
			node.environment().put("KAFKA_SOURCE", kafkaSource());
			node.environment().put("SCREENSHOTS", new File("target/console-screenshots").getAbsolutePath());
			Process process = node.start();
			boolean finished = process.waitFor(3, TimeUnit.MINUTES);
			if (!finished) {
				process.destroyForcibly();
			}
			String log = Files.readString(output);
			System.out.println(log);
			assertThat(finished).as("the browser test finished in time").isTrue();
			assertThat(process.exitValue()).as(log).isZero();
			assertThat(log).containsPattern("ok - resumed without gap or duplicate: (\\w+):0,\\1:1,\\1:2,\\1:3,\\1:4")
				.contains("ok - the snapshot topic's document is rebuilt from snapshot and patch")
				.contains("ok - the ping reached the endpoint, signed");
			assertThat(log).contains("ok - the copy button puts the secret on the clipboard")
				.contains("ok - the registration form is empty again after success")
				.contains("ok - a failed attempt shows the status and the start of the body the endpoint answered")
				.contains("ok - from the oldest retained event: all 7 events")
				.containsPattern("ok - from \\S+: only what was published since")
				.contains("ok - an opened frame shows its JSON indented")
				.contains("ok - switching views clears the last error")
				.contains("ok - the list shows the topic with a failing webhook")
				.contains("ok - a kafka topic's status shows its source and how far it mirrored")
				.contains("ok - the list shows the topic whose poller fails")
				.contains("ok - durations are human-readable")
				.contains("ok - the creation form is back to its template after success");
			for (String shot : List.of("3-resumed", "9-attempt-response", "10-history", "11-health", "12-durations")) {
				assertThat(Path.of("target", "console-screenshots", shot + ".png")).isRegularFile();
			}
		}
	}

	/** A Kafka topic of the test broker for the console to mirror. */
	private static String kafkaSource() throws Exception {
		String name = TestKafka.uniquePrefix().replace(".", "") + "-console-source";
		try (Admin admin = Admin
			.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
			admin.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get();
		}
		return name;
	}

}
