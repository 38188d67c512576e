package dev.streamgate.gateway;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.streamgate.support.GatewayProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The walk-through of docs/guide.md, run as a new user runs it: the standalone gateway
 * started with the README's command and the walk-through's {@code demo} profile (security
 * on, its logged admin token, the demo source and webhook receiver on the gateway
 * itself), and {@code docs/walkthrough.sh} doing each step with curl, ids copied from
 * real answers. A normal first hour logs no WARN and no ERROR. The same walk-through
 * works on a node that keeps everything in memory, which starts no Kafka client at all.
 */
class WalkthroughIntegrationTests {

	@TempDir
	Path work;

	@Test
	@Timeout(value = 4, unit = TimeUnit.MINUTES)
	void theReadmeWalkthroughWorksEndToEndWithoutAWarning() throws Exception {
		Path log = this.work.resolve("gateway.log");
		try (GatewayProcess gateway = GatewayProcess.startReady(log,
				"--streamgate.embedded-kafka.data-dir=" + this.work.resolve("data").resolve("kafka"),
				"--streamgate.embedded-kafka.port=0", "--spring.profiles.active=demo")) {
			walkThrough(gateway);
		}
	}

	@Test
	@Timeout(value = 4, unit = TimeUnit.MINUTES)
	void theWalkthroughWorksOnANodeThatKeepsEverythingInMemory() throws Exception {
		Path log = this.work.resolve("gateway.log");
		try (GatewayProcess gateway = GatewayProcess.startReady(log, "--streamgate.storage=memory",
				"--spring.profiles.active=demo", "--logging.level.org.apache.kafka=INFO")) {
			walkThrough(gateway);
			assertThat(gateway.outputLines()).as("the ready line says what a restart loses")
				.anyMatch((line) -> line.contains("storage: memory, nothing is kept across a restart"));
			assertThat(gateway.outputLines()).as("no Kafka client or broker logged a line")
				.noneMatch((line) -> line.contains("org.apache.kafka") || line.contains("kafka.server"));
		}
	}

	private void walkThrough(GatewayProcess gateway) throws Exception {
		ProcessBuilder script = new ProcessBuilder("bash", Path.of("..", "docs", "walkthrough.sh").toString())
			.redirectErrorStream(true)
			.redirectOutput(this.work.resolve("walkthrough.log").toFile());
		script.environment().put("BASE", gateway.baseUrl());
		script.environment().put("TOKEN", gateway.loggedAdminToken());
		Process process = script.start();
		boolean finished = process.waitFor(3, TimeUnit.MINUTES);
		if (!finished) {
			process.destroyForcibly();
		}
		String output = Files.readString(this.work.resolve("walkthrough.log"));
		System.out.println(output);
		assertThat(finished).as("the walk-through finished in time").isTrue();
		assertThat(process.exitValue()).as(output).isZero();
		assertThat(output).endsWith("walk-through done\n");
		assertThat(gateway.outputLines()).as("the gateway's log")
			.noneMatch((line) -> line.contains(" WARN ") || line.contains(" ERROR "));
	}

}
