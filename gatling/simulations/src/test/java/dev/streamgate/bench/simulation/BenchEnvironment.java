package dev.streamgate.bench.simulation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a simulation measures, started for it: the gateway jar in its own JVM (the options
 * of {@code gateway/jvm.options}, standalone, embedded Kafka with fresh data, security
 * off, loopback egress allowed, no per-client stream limit since every subscriber comes
 * from one address) and optionally NGINX in front of it with
 * {@code deploy/nginx/nginx.conf}. With {@code gateway.url} set, a running gateway is
 * used instead (its {@code gateway.pid}, if given, is measured).
 * <p>
 * Knobs: {@code gateway.url}, {@code gateway.pid}, {@code gateway.jar}
 * ({@code gateway/target/streamgate.jar}), {@code gateway.java-home} (the JDK or JRE that
 * runs the gateway, by default the load generator's), {@code gateway.java-opts},
 * {@code gateway.args} (more {@code --key=value} arguments), {@code via} ({@code direct}
 * or {@code nginx}).
 */
final class BenchEnvironment implements AutoCloseable {

	private static final Path ROOT = Path.of(System.getProperty("streamgate.root", ".")).toAbsolutePath().normalize();

	/** The value of a meter's first measurement in /actuator/metrics/{name}. */
	private static final Pattern MEASUREMENT = Pattern
		.compile("\"measurements\":\\[\\{[^}]*\"value\":([-+0-9.eE]+|NaN)");

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final boolean viaNginx = "nginx".equals(Knobs.text("via", "direct"));

	private final String externalUrl = Knobs.text("gateway.url", null);

	private final int gatewayPort = (this.externalUrl != null) ? -1 : freePort();

	private final int nginxPort = this.viaNginx ? freePort() : -1;

	private final Path work;

	private Process gateway;

	private Process nginx;

	BenchEnvironment() {
		try {
			this.work = Files.createTempDirectory("streamgate-bench");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static Path root() {
		return ROOT;
	}

	/**
	 * Where the admin API and publishers go: the gateway itself.
	 */
	String gatewayUrl() {
		return (this.externalUrl != null) ? this.externalUrl : "http://127.0.0.1:" + this.gatewayPort;
	}

	/**
	 * Where subscribers and publishers under test go: NGINX or the gateway.
	 */
	String clientUrl() {
		return this.viaNginx ? "http://127.0.0.1:" + this.nginxPort : gatewayUrl();
	}

	String via() {
		return this.viaNginx ? "nginx" : "direct";
	}

	/**
	 * Starts the gateway (and NGINX) and waits until the gateway is ready.
	 */
	void start() {
		if (this.externalUrl == null) {
			this.gateway = startGateway();
		}
		if (this.viaNginx) {
			this.nginx = startNginx();
		}
		// The processes must not outlive a load generator that is stopped or crashes.
		Runtime.getRuntime().addShutdownHook(new Thread(this::close));
		awaitReady();
	}

	/**
	 * The process id of the gateway, or -1 when unknown.
	 */
	long gatewayPid() {
		if (this.gateway != null) {
			return this.gateway.pid();
		}
		return Long.parseLong(Knobs.text("gateway.pid", "-1"));
	}

	private Process startGateway() {
		String jar = Knobs.text("gateway.jar", ROOT.resolve("gateway/target/streamgate.jar").toString());
		if (!Files.isRegularFile(Path.of(jar))) {
			throw new IllegalStateException(jar + " is missing: build it with ./mvnw -DskipTests package");
		}
		String javaHome = Knobs.text("gateway.java-home", System.getProperty("java.home"));
		List<String> command = new ArrayList<>();
		command.add(Path.of(javaHome, "bin", "java").toString());
		// The options the gateway runs with (gateway/jvm.options); the knob's come after
		// and win.
		command.add("@" + ROOT.resolve("gateway/jvm.options"));
		command.addAll(words(Knobs.text("gateway.java-opts", "")));
		command.addAll(List.of("-jar", jar, "--server.port=" + this.gatewayPort, "--streamgate.embedded-kafka.port=0",
				"--streamgate.embedded-kafka.data-dir=" + this.work.resolve("kafka"),
				"--streamgate.security.enabled=false", "--streamgate.egress.allowed-cidrs=127.0.0.1/32",
				// One meter read at a time (gauge), not a scrape of them all.
				"--management.endpoints.web.exposure.include=health,info,prometheus,metrics",
				// Every subscriber of the load generator comes from 127.0.0.1.
				"--streamgate.sse.max-streams-per-client=100000"));
		command.addAll(words(Knobs.text("gateway.args", "")));
		return launch(command, "gateway.log");
	}

	private Process startNginx() {
		Path dir = this.work.resolve("nginx");
		try {
			Files.createDirectories(dir);
			String conf = Files.readString(ROOT.resolve("deploy/nginx/nginx.conf"))
				.replace("server 127.0.0.1:8080;", "server " + URI.create(gatewayUrl()).getAuthority() + ";")
				.replace("listen 127.0.0.1:8081;", "listen 127.0.0.1:" + this.nginxPort + ";")
				.replace("listen 127.0.0.1:8082 http2;", "listen 127.0.0.1:" + freePort() + " http2;");
			Files.writeString(dir.resolve("nginx.conf"), conf);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		String binary = Files.isExecutable(Path.of("/usr/sbin/nginx")) ? "/usr/sbin/nginx" : "nginx";
		return launch(
				List.of(binary, "-p", dir.toString(), "-c", dir.resolve("nginx.conf").toString(), "-g", "daemon off;"),
				"nginx.log");
	}

	private Process launch(List<String> command, String log) {
		try {
			Path target = ROOT.resolve("gatling/simulations/target");
			Files.createDirectories(target);
			return new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(target.resolve("bench-" + log).toFile())
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + command.get(0), ex);
		}
	}

	private void awaitReady() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
		while (System.nanoTime() < deadline) {
			if (this.gateway != null && !this.gateway.isAlive()) {
				throw new IllegalStateException("The gateway exited; see gatling/simulations/target/bench-gateway.log");
			}
			if (status("GET", gatewayUrl() + "/actuator/health/readiness", null) == 200
					&& (!this.viaNginx || status("GET", clientUrl() + "/actuator/health/readiness", null) == 200)) {
				return;
			}
			sleep(Duration.ofMillis(250));
		}
		throw new IllegalStateException("The gateway was not ready within 120 s");
	}

	/**
	 * Calls the admin API and insists on a 2xx answer.
	 */
	void admin(String method, String path, String json) {
		int status = status(method, gatewayUrl() + path, json);
		if (status / 100 != 2) {
			throw new IllegalStateException(method + " " + path + " answered " + status);
		}
	}

	/**
	 * The sum of a metric's series as the gateway's {@code /actuator/prometheus} shows it
	 * now, or NaN when it cannot be read.
	 * @param name the Prometheus name, e.g. {@code streamgate_ingest_in_flight_bytes}
	 */
	double metric(String name) {
		return sum(name, new String[] { "" }, Double.NaN);
	}

	/**
	 * A gauge's value as the gateway's {@code /actuator/metrics/{name}} shows it now, or
	 * NaN when it cannot be read. It reads one meter: a Prometheus scrape collects every
	 * meter of the node before it filters by name (Micrometer's collector is one for all
	 * meters), which four times a second cost the gateway about 0.03 core of webhook-13's
	 * 0.45.
	 * @param name the meter's name, e.g. {@code streamgate.ingest.in-flight}
	 */
	double gauge(String name) {
		HttpResponse<String> response = get("/actuator/metrics/" + name);
		if (response == null || response.statusCode() != 200) {
			return Double.NaN;
		}
		Matcher value = MEASUREMENT.matcher(response.body());
		return value.find() ? Double.parseDouble(value.group(1)) : Double.NaN;
	}

	/**
	 * A counter's series that carry one of some labels, added up; a counter no event has
	 * made yet has no series and counts zero. NaN when the gateway cannot be read.
	 * @param name the Prometheus name, e.g. {@code streamgate_webhook_deliveries_total}
	 * @param labels labels as Prometheus writes them, e.g. {@code outcome="retrying"}
	 */
	double count(String name, String... labels) {
		return sum(name, labels, 0);
	}

	private double sum(String name, String[] labels, double none) {
		// The filter takes a family's name: a counter's samples add _total to it.
		String family = name.endsWith("_total") ? name.substring(0, name.length() - "_total".length()) : name;
		HttpResponse<String> response = get("/actuator/prometheus?includedNames=" + family);
		if (response == null) {
			return Double.NaN;
		}
		try {
			return response.body()
				.lines()
				.filter((line) -> line.startsWith(name + " ") || line.startsWith(name + "{"))
				.filter((line) -> Arrays.stream(labels).anyMatch(line::contains))
				.mapToDouble((line) -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
				.reduce(Double::sum)
				.orElse(none);
		}
		catch (NumberFormatException ex) {
			return Double.NaN;
		}
	}

	/** A GET of the gateway's, or null when it could not be made. */
	private HttpResponse<String> get(String path) {
		HttpRequest request = HttpRequest.newBuilder(URI.create(gatewayUrl() + path))
			.timeout(Duration.ofSeconds(5))
			.build();
		try {
			return this.http.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
	}

	private int status(String method, String url, String json) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
		if (json != null) {
			request.header("Content-Type", "application/json")
				.method(method, HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
		}
		else {
			request.method(method, HttpRequest.BodyPublishers.noBody());
		}
		try {
			return this.http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
		}
		catch (IOException ex) {
			return -1;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return -1;
		}
	}

	@Override
	public synchronized void close() {
		stop(this.nginx);
		stop(this.gateway);
		this.nginx = null;
		this.gateway = null;
		try (var paths = Files.walk(this.work)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// a temporary directory left behind is not worth failing a run for
		}
	}

	private static void stop(Process process) {
		if (process == null) {
			return;
		}
		process.destroy();
		try {
			if (!process.waitFor(20, TimeUnit.SECONDS)) {
				process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			process.destroyForcibly();
			Thread.currentThread().interrupt();
		}
	}

	static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static List<String> words(String text) {
		return text.isBlank() ? List.of() : List.of(text.trim().split("\\s+"));
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
