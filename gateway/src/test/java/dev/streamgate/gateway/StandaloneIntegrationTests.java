package dev.streamgate.gateway;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.MediaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.streamgate.support.GatewayProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Standalone mode as an operator runs it: a gateway process with no Kafka address,
 * stopped with SIGTERM and started again on the same data directory.
 */
class StandaloneIntegrationTests {

	@TempDir
	Path work;

	private GatewayProcess startStandalone(Path output, String... extra) {
		String[] args = new String[extra.length + 2];
		args[0] = "--streamgate.embedded-kafka.data-dir=" + this.work.resolve("kafka");
		args[1] = "--streamgate.embedded-kafka.port=0";
		System.arraycopy(extra, 0, args, 2, extra.length);
		return GatewayProcess.startReady(output, args);
	}

	@Test
	void standaloneGatewayKeepsItsTopicsAndTokensAcrossARestartAndLogsJsonOnRequest() throws Exception {
		Path firstLog = this.work.resolve("first.log");
		String etag;
		String firstToken;
		try (GatewayProcess gateway = startStandalone(firstLog)) {
			// Secure by default: no key configured, so a random one (kept in a file) and
			// a
			// logged admin token.
			gateway.client().get().uri("/api/v1/topics").exchange().expectStatus().isUnauthorized();
			firstToken = devToken(gateway);
			etag = gateway.client()
				.post()
				.uri("/api/v1/topics")
				.headers((headers) -> headers.setBearerAuth(firstToken))
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"id\":\"kept\",\"name\":\"Kept across restarts\"}")
				.exchange()
				.expectStatus()
				.isCreated()
				.returnResult(String.class)
				.getResponseHeaders()
				.getETag();
			assertThat(gateway.stop()).isEqualTo(143);
			assertThat(gateway.outputLines())
				.anyMatch((line) -> line.contains("Kafka: started the embedded KRaft broker")
						&& line.contains("(standalone mode: spring.kafka.bootstrap-servers is not set)"))
				.anyMatch((line) -> line.contains("Kafka: stopping the embedded broker"))
				.anyMatch((line) -> line.contains("streamgate is up (roles: all)"))
				// A first start on an empty data directory is a normal start: nothing to
				// warn
				// of.
				.noneMatch((line) -> line.contains(" WARN ") || line.contains(" ERROR "))
				.anyMatch(
						(line) -> line.trim().equals("console      http://localhost:" + gateway.port() + "/console/"));
		}
		assertThat(this.work.resolve("kafka").resolve("meta.properties")).exists();

		Path secondLog = this.work.resolve("second.log");
		try (GatewayProcess gateway = startStandalone(secondLog, "--logging.structured.format.console=ecs")) {
			// The key was kept beside the broker's storage: the last run's token still
			// works, until it expires.
			assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(this.work.resolve("token.key"))))
				.isEqualTo("rw-------");
			gateway.client()
				.get()
				.uri("/api/v1/topics/kept")
				.headers((headers) -> headers.setBearerAuth(firstToken))
				.exchange()
				.expectStatus()
				.isOk();
			String token = devToken(gateway);
			gateway.client()
				.get()
				.uri("/api/v1/topics/kept")
				.headers((headers) -> headers.setBearerAuth(token))
				.exchange()
				.expectStatus()
				.isOk()
				.expectHeader()
				.valueEquals("ETag", etag)
				.expectBody()
				.jsonPath("$.name")
				.isEqualTo("Kept across restarts");
			List<JsonNode> json = jsonLines(gateway.outputLines());
			assertThat(json).anySatisfy((line) -> {
				assertThat(line.get("message").asString()).startsWith("Started StreamgateApplication");
				assertThat(line.get("log").get("level").asString()).isEqualTo("INFO");
			});
		}
	}

	/** The admin token a gateway without a configured key logs at start-up. */
	private static String devToken(GatewayProcess gateway) {
		Pattern jwt = Pattern.compile("(eyJ[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+)");
		List<String> tokens = gateway.outputLines()
			.stream()
			.map(jwt::matcher)
			.filter(Matcher::find)
			.map((matcher) -> matcher.group(1))
			.toList();
		assertThat(tokens).as("one logged admin token").hasSize(1);
		return tokens.get(0);
	}

	private static List<JsonNode> jsonLines(List<String> lines) {
		JsonMapper mapper = JsonMapper.builder().build();
		return lines.stream().filter((line) -> line.startsWith("{")).map((line) -> {
			try {
				return mapper.readTree(line);
			}
			catch (RuntimeException ex) {
				return null;
			}
		}).filter(Objects::nonNull).toList();
	}

}
