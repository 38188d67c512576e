package dev.streamgate.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;

import dev.streamgate.support.BrokerProcess;
import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.Tokens;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Property-based fuzzing of the whole API from the OpenAPI document the gateway serves,
 * with schemathesis (PyPI, installed by {@code src/test/fuzz/ensure}), security on and an
 * admin token: no generated request may get a 5xx, every answer must match the document
 * (its status codes, content types and schemas), and the gateway is still ready
 * afterwards. Streams are left out (they never end); their bad input is in
 * {@link BadInputFaultTests}.
 */
@Tag("faults")
class ApiFuzzFaultTests {

	private static final Path SCHEMATHESIS = Path.of(System.getProperty("user.home"),
			".cache/streamgate/schemathesis-4.32.5/bin/schemathesis");

	private static final String SECRET = "a-fuzzing-hmac-secret-of-at-least-32-bytes";

	@Test
	void noGeneratedRequestGetsAServerErrorOrAnAnswerTheDocumentDoesNotDescribe(@TempDir Path dir)
			throws IOException, InterruptedException {
		assertThat(SCHEMATHESIS).as("installed by gateway/src/test/fuzz/ensure").isExecutable();
		try (BrokerProcess broker = BrokerProcess.start(dir.resolve("kafka"), dir.resolve("broker.log"));
				GatewayProcess gateway = GatewayProcess.startReady(dir.resolve("gateway.log"), GatewayCrashFaultTests
					.withBroker(new String[] { "--streamgate.security.jwt.secret=" + SECRET }, broker))) {
			String token = Tokens.hs256(SECRET, Map.of("admin", true), Instant.now().plus(Duration.ofHours(2)));
			WebClient.create(gateway.baseUrl())
				.post()
				.uri("/api/v1/topics")
				.header(HttpHeaders.AUTHORIZATION, "Bearer " + token)
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"id\":\"fuzz\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}")
				.retrieve()
				.toBodilessEntity()
				.block(Duration.ofSeconds(30));
			// Half of the path parameters name a topic that exists, so that the
			// operations behind
			// the 404 are reached too.
			Files.writeString(dir.resolve("schemathesis.toml"), "[parameters]\ntopicId = \"fuzz\"\n");
			Path report = dir.resolve("schemathesis.txt");
			List<String> command = List.of(SCHEMATHESIS.toString(), "run", gateway.baseUrl() + "/v3/api-docs", "-H",
					"Authorization: Bearer " + token, "--checks",
					"not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance",
					"--exclude-path-regex", "/api/v1/stream/.*", "--max-examples", Accounts.full() ? "500" : "40",
					"--request-timeout", "30", "--seed", "20261121", "--no-color");
			Process fuzz = new ProcessBuilder(command).directory(dir.toFile())
				.redirectErrorStream(true)
				.redirectOutput(report.toFile())
				.start();
			boolean finished = fuzz.waitFor(Accounts.full() ? 30 : 8, TimeUnit.MINUTES);
			if (!finished) {
				fuzz.destroyForcibly();
			}
			String output = Files.readString(report);
			System.out.println(output.lines()
				.filter((line) -> line.contains("passed") || line.contains("failed") || line.contains("cases"))
				.reduce("schemathesis:", (a, b) -> a + "\n" + b));
			assertThat(finished).as("schemathesis finished").isTrue();
			// Failed checks (a 5xx, an answer off the document) are listed under
			// "Failures:" in the summary.
			// Network
			// errors (an answer slower than the request timeout) are listed under
			// "Errors:"; a
			// rare one is an open problem (docs/reliability.md) and is reported, not
			// failed on.
			assertThat(output).as(output)
				.contains("Test cases:")
				.doesNotContain("Failures:")
				.doesNotContain("Server error");
			if (fuzz.exitValue() != 0) {
				System.out.println("schemathesis reported errors that are not failed checks:\n" + output);
			}
			assertThat(gateway.readinessStatus()).isEqualTo(200);
		}
	}

}
