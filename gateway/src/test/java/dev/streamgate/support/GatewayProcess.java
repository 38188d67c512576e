package dev.streamgate.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.test.web.reactive.server.WebTestClient;

import dev.streamgate.StreamgateApplication;

import static org.awaitility.Awaitility.await;

/**
 * A gateway in a JVM of its own, started and stopped the way an operator does:
 * command-line arguments in, SIGTERM to stop, its console output kept in a file.
 */
public final class GatewayProcess implements AutoCloseable, JsonRequests {

	private final Process process;

	private final Path output;

	private final WebTestClient client;

	private final int port;

	private GatewayProcess(Process process, Path output, int port) {
		this.process = process;
		this.output = output;
		this.port = port;
		this.client = WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	/**
	 * Starts a gateway on a free port and waits until it is ready.
	 * @param output file that receives the console output
	 * @param args further command-line arguments
	 * @return the ready gateway
	 */
	public static GatewayProcess startReady(Path output, String... args) {
		return startReady(output, freePort(), args);
	}

	/**
	 * Starts a gateway on a given port (again, after a crash) and waits until it is
	 * ready.
	 * @param output file that receives the console output (appended to)
	 * @param port the HTTP port
	 * @param args further command-line arguments
	 * @return the ready gateway
	 */
	public static GatewayProcess startReady(Path output, int port, String... args) {
		List<String> arguments = new ArrayList<>(List.of("--server.port=" + port));
		arguments.addAll(List.of(args));
		List<String> command = JavaCommand.of(List.of(), StreamgateApplication.class, arguments);
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
				.start();
			GatewayProcess gateway = new GatewayProcess(process, output, port);
			await().atMost(Duration.ofSeconds(60))
				.pollInterval(Duration.ofMillis(250))
				.ignoreExceptions()
				.until(() -> gateway.readinessStatus() == 200);
			return gateway;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Runs the gateway's main class with the given arguments in a directory of its own
	 * until it exits by itself, as a command that prints and ends does.
	 * @param directory the working directory
	 * @param within how long it may take
	 * @param args the command-line arguments
	 * @return its exit code and console output
	 */
	public static Finished runToEnd(Path directory, Duration within, String... args) {
		List<String> command = JavaCommand.of(List.of(), StreamgateApplication.class, List.of(args));
		Path output = directory.resolve("console-" + System.nanoTime() + ".log");
		try {
			Process process = new ProcessBuilder(command).directory(directory.toFile())
				.redirectErrorStream(true)
				.redirectOutput(output.toFile())
				.start();
			if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
				process.destroyForcibly().waitFor();
				throw new AssertionError("still running after " + within + ": " + Files.readString(output));
			}
			return new Finished(process.exitValue(), Files.readAllLines(output));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * A process that ended.
	 *
	 * @param exitCode its exit code
	 * @param output its console output
	 */
	public record Finished(int exitCode, List<String> output) {
	}

	@Override
	public WebTestClient client() {
		return this.client;
	}

	@Override
	public String baseUrl() {
		return "http://127.0.0.1:" + this.port;
	}

	/**
	 * The HTTP status of the readiness probe.
	 * @return 200 when ready
	 */
	public int readinessStatus() {
		return RunningGateway.readinessStatus(this.client);
	}

	/**
	 * The console output so far.
	 * @return the lines
	 */
	public List<String> outputLines() {
		try {
			return Files.readAllLines(this.output);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The admin token a gateway without a configured key logs at start-up (the first one
	 * in its output).
	 * @return the token
	 */
	public String loggedAdminToken() {
		Pattern jwt = Pattern.compile("(eyJ[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+)");
		return outputLines().stream()
			.map(jwt::matcher)
			.filter(Matcher::find)
			.map((matcher) -> matcher.group(1))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no admin token in the gateway's output"));
	}

	/**
	 * Sends SIGTERM and waits for the process to end.
	 * @return the exit code
	 */
	public int stop() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(60, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
			}
			return this.process.waitFor();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.process.destroyForcibly();
			return -1;
		}
	}

	/**
	 * Kills the process with SIGKILL, as a crash or an OOM killer would, and waits for it
	 * to end.
	 */
	public void kill() {
		this.process.destroyForcibly();
		try {
			this.process.waitFor(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void close() {
		if (this.process.isAlive()) {
			stop();
		}
	}

	/**
	 * The process id, to read its resources from {@code /proc}.
	 * @return the pid
	 */
	public long pid() {
		return this.process.pid();
	}

	public int port() {
		return this.port;
	}

	/**
	 * A free port on the loopback address.
	 * @return the port
	 */
	public static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
