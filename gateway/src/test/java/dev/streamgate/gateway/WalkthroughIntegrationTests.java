package dev.streamgate.gateway;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.streamgate.support.GatewayProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's walk-through, run as a new user runs it: the standalone gateway started
 * with the README's command (security on, its logged admin token), and
 * {@code docs/walkthrough.sh} doing each step with curl, ids copied from real answers. A
 * normal first hour logs no WARN and no ERROR.
 */
class WalkthroughIntegrationTests {

	@TempDir
	Path work;

	@Test
	@Timeout(value = 4, unit = TimeUnit.MINUTES)
	void theReadmeWalkthroughWorksEndToEndWithoutAWarning() throws Exception {
		AtomicInteger hooks = new AtomicInteger();
		HttpServer local = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		local.createContext("/prices", (exchange) -> answer(exchange, 200, "{\"data\":{\"EURUSD\":1.08}}"));
		local.createContext("/hooks", (exchange) -> {
			exchange.getRequestBody().readAllBytes();
			hooks.incrementAndGet();
			answer(exchange, 204, null);
		});
		local.start();
		Path log = this.work.resolve("gateway.log");
		try (GatewayProcess gateway = GatewayProcess.startReady(log,
				"--streamgate.embedded-kafka.data-dir=" + this.work.resolve("data").resolve("kafka"),
				"--streamgate.embedded-kafka.port=0", "--streamgate.egress.allowed-cidrs=127.0.0.1/32",
				"--streamgate.egress.allow-public=false")) {
			String source = "http://127.0.0.1:" + local.getAddress().getPort();
			ProcessBuilder script = new ProcessBuilder("bash", Path.of("..", "docs", "walkthrough.sh").toString())
				.redirectErrorStream(true)
				.redirectOutput(this.work.resolve("walkthrough.log").toFile());
			script.environment().put("BASE", gateway.baseUrl());
			script.environment().put("TOKEN", gateway.loggedAdminToken());
			script.environment().put("SOURCE", source + "/prices");
			script.environment().put("WEBHOOK_URL", source + "/hooks/orders");
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
			assertThat(hooks).as("the ping and order 4 reached the webhook endpoint").hasValueGreaterThanOrEqualTo(2);
			assertThat(gateway.outputLines()).as("the gateway's log")
				.noneMatch((line) -> line.contains(" WARN ") || line.contains(" ERROR "));
		}
		finally {
			local.stop(0);
		}
	}

	private static void answer(HttpExchange exchange, int status, String json) throws IOException {
		if (json == null) {
			exchange.sendResponseHeaders(status, -1);
		}
		else {
			byte[] body = json.getBytes(StandardCharsets.UTF_8);
			exchange.getResponseHeaders().set("Content-Type", "application/json");
			exchange.sendResponseHeaders(status, body.length);
			exchange.getResponseBody().write(body);
		}
		exchange.close();
	}

}
