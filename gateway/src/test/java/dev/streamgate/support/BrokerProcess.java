package dev.streamgate.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;

import dev.streamgate.storage.kafka.EmbeddedKafkaBroker;

import static org.awaitility.Awaitility.await;

/**
 * A single-node KRaft broker in a JVM of its own, so that a test can kill it and start it
 * again on the same port and storage while gateways keep running.
 */
public final class BrokerProcess implements AutoCloseable {

	private final Path dataDir;

	private final int port;

	private final Path output;

	private final int saslPort;

	private final List<String> saslUser;

	private final int sslPort;

	private final int saslSslPort;

	private final SelfSignedCertificate certificate;

	private Process process;

	private BrokerProcess(Path dataDir, int port, int saslPort, Path output, List<String> saslUser,
			SelfSignedCertificate certificate) {
		this.dataDir = dataDir;
		this.port = port;
		this.saslPort = saslPort;
		this.output = output;
		this.saslUser = saslUser;
		this.certificate = certificate;
		this.sslPort = (certificate != null) ? GatewayProcess.freePort() : 0;
		this.saslSslPort = (certificate != null) ? GatewayProcess.freePort() : 0;
	}

	/**
	 * Starts a broker on a free port and waits until it accepts connections.
	 * @param dataDir its storage
	 * @param output file that receives its console output
	 * @return the running broker
	 */
	public static BrokerProcess start(Path dataDir, Path output) {
		return firstStart((attempt) -> new BrokerProcess(attempt.apply(dataDir), GatewayProcess.freePort(), 0, output,
				List.of(), null));
	}

	/**
	 * Starts a broker that also has a SASL_PLAINTEXT listener with SCRAM-SHA-256,
	 * SCRAM-SHA-512 and PLAIN, for one user (its SCRAM credentials added through the
	 * plain listener).
	 * @param dataDir its storage
	 * @param output file that receives its console output
	 * @param user the user
	 * @param password the user's password
	 * @return the running broker
	 */
	public static BrokerProcess startWithScram(Path dataDir, Path output, String user, String password) {
		return startWithScram(dataDir, output, user, password, null);
	}

	/**
	 * Starts a broker with a SASL_PLAINTEXT listener as
	 * {@link #startWithScram(Path, Path, String, String)} does and, given a certificate,
	 * an SSL and a SASL_SSL listener that present it.
	 * @param dataDir its storage
	 * @param output file that receives its console output
	 * @param user the user
	 * @param password the user's password
	 * @param certificate the TLS listeners' certificate, or {@code null} for none
	 * @return the running broker
	 */
	public static BrokerProcess startWithScram(Path dataDir, Path output, String user, String password,
			SelfSignedCertificate certificate) {
		BrokerProcess broker = firstStart((attempt) -> new BrokerProcess(attempt.apply(dataDir),
				GatewayProcess.freePort(), GatewayProcess.freePort(), output, List.of(user, password), certificate));
		try (Admin admin = Admin
			.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
			// One mechanism per request: Kafka refuses two changes of a user in one.
			for (ScramMechanism mechanism : List.of(ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512)) {
				admin
					.alterUserScramCredentials(List
						.of(new UserScramCredentialUpsertion(user, new ScramCredentialInfo(mechanism, 8192), password)))
					.all()
					.get(30, TimeUnit.SECONDS);
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException("Cannot add the SCRAM user", ex);
		}
		return broker;
	}

	/**
	 * The SASL_PLAINTEXT listener's address.
	 * @return {@code host:port}
	 */
	public String saslBootstrapServers() {
		return "127.0.0.1:" + this.saslPort;
	}

	/**
	 * The SSL listener's address (TLS, no credentials).
	 * @return {@code host:port}
	 */
	public String sslBootstrapServers() {
		return "127.0.0.1:" + this.sslPort;
	}

	/**
	 * The SASL_SSL listener's address.
	 * @return {@code host:port}
	 */
	public String saslSslBootstrapServers() {
		return "127.0.0.1:" + this.saslSslPort;
	}

	public String bootstrapServers() {
		return "127.0.0.1:" + this.port;
	}

	/**
	 * Starts the broker (again) on the same port and storage.
	 */
	public synchronized void restart() {
		List<String> arguments = new ArrayList<>(
				List.of(this.dataDir.toString(), Integer.toString(this.port), Integer.toString(this.saslPort)));
		arguments.addAll(this.saslUser);
		if (this.certificate != null) {
			arguments.addAll(List.of(Integer.toString(this.sslPort), Integer.toString(this.saslSslPort),
					this.certificate.keyStore().toString(), this.certificate.password()));
		}
		List<String> command = JavaCommand.of(List.of("-Xmx512m"), BrokerProcess.class, arguments);
		try {
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.output.toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		await().atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> accepting() || !this.process.isAlive());
		if (!accepting()) {
			throw new Exited("the broker process exited with " + this.process.exitValue() + " before it listened on "
					+ this.port + "; its output: " + this.output);
		}
	}

	/**
	 * Starts a new broker on free ports; when its process exits before it listens (a port
	 * another test took between the choice and the bind), once more on other ports and a
	 * storage of its own.
	 */
	private static BrokerProcess firstStart(Function<UnaryOperator<Path>, BrokerProcess> broker) {
		for (int attempt = 1;; attempt++) {
			int number = attempt;
			BrokerProcess started = broker.apply((dataDir) -> (number == 1) ? dataDir
					: dataDir.resolveSibling(dataDir.getFileName() + "-" + number));
			try {
				started.restart();
				return started;
			}
			catch (Exited ex) {
				if (attempt == 3) {
					throw ex;
				}
			}
		}
	}

	/** The broker process ended before it listened. */
	private static final class Exited extends IllegalStateException {

		Exited(String message) {
			super(message);
		}

	}

	/**
	 * Kills the broker with SIGKILL and waits until its port is free.
	 */
	public synchronized void kill() {
		this.process.destroyForcibly();
		try {
			this.process.waitFor(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> !accepting());
	}

	private boolean accepting() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", this.port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	@Override
	public synchronized void close() {
		if (this.process != null && this.process.isAlive()) {
			this.process.destroy();
			try {
				if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
					this.process.destroyForcibly();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				this.process.destroyForcibly();
			}
		}
	}

	/**
	 * Runs a broker until the process is stopped.
	 * @param args the storage directory, the port, the SASL port with its user and
	 * password, then the SSL and SASL_SSL ports with the key store and its password
	 * @throws InterruptedException when interrupted
	 */
	public static void main(String[] args) throws InterruptedException {
		int saslPort = (args.length > 2) ? Integer.parseInt(args[2]) : 0;
		EmbeddedKafkaBroker.TlsListeners tls = (args.length > 5) ? new EmbeddedKafkaBroker.TlsListeners(
				Integer.parseInt(args[5]), Integer.parseInt(args[6]), Path.of(args[7]), args[8]) : null;
		EmbeddedKafkaBroker broker = (saslPort != 0)
				? EmbeddedKafkaBroker.start(Path.of(args[0]), Integer.parseInt(args[1]),
						new EmbeddedKafkaBroker.SaslListener(saslPort, args[3], args[4]), tls)
				: EmbeddedKafkaBroker.start(Path.of(args[0]), Integer.parseInt(args[1]));
		CountDownLatch stopped = new CountDownLatch(1);
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			broker.close();
			stopped.countDown();
		}));
		System.out.println("Broker ready on " + broker.bootstrapServers());
		stopped.await();
	}

}
