package dev.streamgate.gateway;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.GatewayProcess.Finished;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command line as an operator meets it: {@code --help} and {@code --version} print
 * and exit without starting anything, and a second gateway on a data directory that a
 * running one owns is refused in plain words before it touches the directory.
 */
class CommandLineIntegrationTests {

	@TempDir
	Path work;

	@Test
	void helpPrintsTheUsageAndStartsNothing() {
		Finished help = GatewayProcess.runToEnd(this.work, Duration.ofSeconds(30), "--help");
		assertThat(help.exitCode()).isZero();
		assertThat(help.output()).anyMatch((line) -> line.startsWith("Usage: java -jar streamgate.jar"))
			.anyMatch((line) -> line.contains("--streamgate.embedded-kafka.data-dir"));
		assertThat(this.work.resolve("data")).doesNotExist();
	}

	@Test
	void versionPrintsTheBuildsVersionAndStartsNothing() {
		Finished version = GatewayProcess.runToEnd(this.work, Duration.ofSeconds(30), "--version");
		assertThat(version.exitCode()).isZero();
		assertThat(version.output()).singleElement().asString().matches("streamgate \\d+\\.\\d+\\.\\d+.*");
		assertThat(this.work.resolve("data")).doesNotExist();
	}

	@Test
	@Timeout(value = 3, unit = TimeUnit.MINUTES)
	void aSecondGatewayOnTheSameDataDirectoryIsRefusedWithoutTouchingIt() throws Exception {
		Path data = this.work.resolve("data").resolve("kafka");
		Path log = this.work.resolve("first.log");
		try (GatewayProcess first = GatewayProcess.startReady(log, "--streamgate.embedded-kafka.data-dir=" + data,
				"--streamgate.embedded-kafka.port=0")) {
			String token = first.loggedAdminToken();
			for (int attempt = 0; attempt < 2; attempt++) {
				Finished second = GatewayProcess.runToEnd(this.work, Duration.ofSeconds(90),
						"--server.port=" + GatewayProcess.freePort(), "--streamgate.embedded-kafka.data-dir=" + data,
						"--streamgate.embedded-kafka.port=0");
				assertThat(second.exitCode()).isNotZero();
				assertThat(second.output())
					.anyMatch((line) -> line.contains("The data directory " + data.toAbsolutePath().normalize()
							+ " is in use by another streamgate process"))
					.noneMatch((line) -> line.contains("Corruption found"))
					.noneMatch((line) -> line.trim().startsWith("at "));
			}
			assertThat(first.readinessStatus()).isEqualTo(200);
			first.client()
				.get()
				.uri("/api/v1/topics")
				.header("Authorization", "Bearer " + token)
				.exchange()
				.expectStatus()
				.isOk();
			assertThat(Files.readAllLines(log)).noneMatch((line) -> line.contains("Corruption found"));
		}
		// The first gateway left with its lock: the directory is free again.
		try (GatewayProcess again = GatewayProcess.startReady(this.work.resolve("again.log"),
				"--streamgate.embedded-kafka.data-dir=" + data, "--streamgate.embedded-kafka.port=0")) {
			assertThat(again.readinessStatus()).isEqualTo(200);
		}
	}

}
