package dev.streamgate.image;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.streamgate.support.GatewayProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The container image the build writes ({@code target/streamgate-image.tar}, OCI, by Jib)
 * starts a working gateway: its layers are unpacked in order into a root directory, and
 * its entrypoint runs as the image config says, with the build machine's {@code java}
 * (the image's base is scratch here; a registry's JRE base is added by
 * {@code jib:build}).
 */
class ContainerImageTests {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@TempDir
	Path work;

	@Test
	@Timeout(value = 3, unit = TimeUnit.MINUTES)
	void theImagesEntrypointStartsAReadyGatewayFromItsLayers() throws Exception {
		Path image = Path.of("target", "streamgate-image.tar");
		assertThat(image).as("written by jib:buildTar before the tests").isRegularFile();
		Path layout = this.work.resolve("layout");
		run("tar", "-xf", image.toString(), "-C", mkdirs(layout).toString());
		JsonNode index = read(layout.resolve("index.json"));
		JsonNode manifest = read(blob(layout, index.get("manifests").get(0).get("digest").asString()));
		JsonNode config = read(blob(layout, manifest.get("config").get("digest").asString())).get("config");
		Path root = mkdirs(this.work.resolve("root"));
		for (JsonNode layer : manifest.get("layers")) {
			run("tar", "-xzf", blob(layout, layer.get("digest").asString()).toString(), "-C", root.toString());
		}

		assertThat(config.get("User").asString()).as("the Dockerfile's non-root user").isEqualTo("10001:10001");
		assertThat(config.get("ExposedPorts").has("8080/tcp")).isTrue();
		assertThat(config.get("Env").toString()).contains("JAVA_TOOL_OPTIONS=-XX:MaxRAMPercentage=75");

		List<String> command = new ArrayList<>();
		for (JsonNode part : config.get("Entrypoint")) {
			command.add(inRoot(part.asString(), root));
		}
		assertThat(command.get(0)).isEqualTo("java");
		command.set(0, Path.of(System.getProperty("java.home"), "bin", "java").toString());
		int port = GatewayProcess.freePort();
		command.addAll(List.of("--server.port=" + port,
				"--streamgate.embedded-kafka.data-dir=" + this.work.resolve("data").resolve("kafka"),
				"--streamgate.embedded-kafka.port=0"));
		Path log = this.work.resolve("gateway.log");
		Process gateway = new ProcessBuilder(command).directory(root.toFile())
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			HttpClient http = HttpClient.newHttpClient();
			HttpRequest readiness = HttpRequest
				.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health/readiness"))
				.build();
			await().atMost(Duration.ofSeconds(90))
				.pollInterval(Duration.ofMillis(500))
				.ignoreExceptions()
				.failFast("the gateway exited", () -> !gateway.isAlive())
				.until(() -> http.send(readiness, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
		}
		finally {
			gateway.destroy();
			if (!gateway.waitFor(30, TimeUnit.SECONDS)) {
				gateway.destroyForcibly();
			}
			System.out.println(Files.readString(log));
		}
	}

	@Test
	@Timeout(value = 2, unit = TimeUnit.MINUTES)
	void theImagesStreamgateCommandMintsATokenAsTheOperationsGuideSays() throws Exception {
		Path root = unpack();
		Path command = root.resolve("usr/local/bin/streamgate");
		assertThat(Files.isExecutable(command)).as("on the image's PATH, executable").isTrue();
		// The image's absolute /app, moved under the unpacked root.
		Path classpath = root.resolve("app/jib-classpath-file");
		Files.writeString(classpath, Files.readString(classpath).replace("/app/", root.resolve("app") + "/"));
		ProcessBuilder token = new ProcessBuilder("sh", command.toString(), "token", "--admin", "--ttl", "1h",
				"--streamgate.security.jwt.secret=an-hmac-secret-of-at-least-32-bytes-for-hs256")
			.redirectErrorStream(true);
		token.environment().put("STREAMGATE_HOME", root.resolve("app").toString());
		token.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":" + System.getenv("PATH"));
		Process process = token.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(output).isZero();
		assertThat(output.strip().lines().reduce((first, last) -> last).orElse(""))
			.matches("eyJ[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+");
	}

	private Path unpack() throws Exception {
		Path image = Path.of("target", "streamgate-image.tar");
		Path layout = this.work.resolve("layout-only");
		run("tar", "-xf", image.toString(), "-C", mkdirs(layout).toString());
		JsonNode index = read(layout.resolve("index.json"));
		JsonNode manifest = read(blob(layout, index.get("manifests").get(0).get("digest").asString()));
		Path root = mkdirs(this.work.resolve("root-only"));
		for (JsonNode layer : manifest.get("layers")) {
			run("tar", "-xzf", blob(layout, layer.get("digest").asString()).toString(), "-C", root.toString());
		}
		return root;
	}

	/**
	 * An entrypoint argument with the image's absolute paths moved under the unpacked
	 * root; an {@code @argfile} is rewritten the same way.
	 */
	private static String inRoot(String argument, Path root) throws IOException {
		if (argument.startsWith("@/")) {
			Path file = root.resolve(argument.substring(2));
			Path moved = file.resolveSibling(file.getFileName() + "-in-root");
			Files.writeString(moved, Files.readString(file).replace("/app/", root.resolve("app") + "/"));
			return "@" + moved;
		}
		return argument;
	}

	private static Path blob(Path layout, String digest) {
		return layout.resolve("blobs").resolve("sha256").resolve(digest.substring("sha256:".length()));
	}

	private static JsonNode read(Path file) throws IOException {
		return JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
	}

	private static Path mkdirs(Path dir) throws IOException {
		return Files.createDirectories(dir);
	}

	private static void run(String... command) throws IOException, InterruptedException {
		Process process = new ProcessBuilder(command).inheritIO().start();
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(String.join(" ", command)).isZero();
	}

}
