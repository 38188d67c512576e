package dev.streamgate.storage.kafka;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node Kafka KRaft broker (broker and controller in one) running in this
 * JVM.
 * <p>
 * Storage lives under a data directory that is formatted on the first start and reused on
 * every later one, so standalone mode keeps its topics, events and cursors across
 * restarts. One broker at a time owns a data directory: it locks the directory before it
 * reads or formats anything in it, and a second broker (another gateway started on the
 * same directory) is refused before it can touch the first one's logs.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(EmbeddedKafkaBroker.class);

	private static final String HOST = "127.0.0.1";

	/** The file whose lock says that a broker owns the data directory. */
	static final String LOCK_FILE = "streamgate.lock";

	private final Path dataDir;

	private final int port;

	private final SaslListener sasl;

	private final TlsListeners tls;

	private KafkaRaftServer server;

	private FileChannel lockFile;

	private EmbeddedKafkaBroker(Path dataDir, int port, SaslListener sasl, TlsListeners tls) {
		this.dataDir = dataDir.toAbsolutePath().normalize();
		this.port = port;
		this.sasl = sasl;
		this.tls = tls;
	}

	/**
	 * Starts a broker, formatting its storage first when it has none.
	 * @param dataDir the storage directory
	 * @param port the client port, 0 for a free one
	 * @return the running broker
	 */
	public static EmbeddedKafkaBroker start(Path dataDir, int port) {
		EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker(dataDir, (port != 0) ? port : freePort(), null, null);
		broker.startServer();
		return broker;
	}

	/**
	 * Starts a broker that also listens for SASL_PLAINTEXT clients with SCRAM-SHA-256,
	 * SCRAM-SHA-512 and PLAIN (a cluster that asks for credentials, for tests of clients
	 * that send them; SCRAM users are added with the Admin API through the plain
	 * listener).
	 * @param dataDir the storage directory
	 * @param port the plain client port
	 * @param sasl the SASL listener
	 * @return the running broker
	 */
	public static EmbeddedKafkaBroker start(Path dataDir, int port, SaslListener sasl) {
		return start(dataDir, port, sasl, null);
	}

	/**
	 * Starts a broker with a SASL_PLAINTEXT listener and, when {@code tls} is given, an
	 * SSL and a SASL_SSL listener too (for tests of clients that trust a given
	 * certificate).
	 * @param dataDir the storage directory
	 * @param port the plain client port
	 * @param sasl the SASL listener, its users also those of SASL_SSL
	 * @param tls the TLS listeners, or {@code null}
	 * @return the running broker
	 */
	public static EmbeddedKafkaBroker start(Path dataDir, int port, SaslListener sasl, TlsListeners tls) {
		Objects.requireNonNull(sasl, "TLS listeners need the SASL listener's users");
		EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker(dataDir, (port != 0) ? port : freePort(), sasl, tls);
		broker.startServer();
		return broker;
	}

	/**
	 * The address clients connect to.
	 * @return {@code host:port}
	 */
	public String bootstrapServers() {
		return HOST + ":" + this.port;
	}

	public int port() {
		return this.port;
	}

	public Path dataDir() {
		return this.dataDir;
	}

	private synchronized void startServer() {
		Properties config = brokerConfig(freePort());
		try {
			Files.createDirectories(this.dataDir);
			lock();
			if (!Files.exists(this.dataDir.resolve("meta.properties"))) {
				format();
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot prepare Kafka storage in " + this.dataDir, ex);
		}
		try {
			KafkaRaftServer started = new KafkaRaftServer(KafkaConfig.fromProps(config, false), Time.SYSTEM);
			started.startup();
			this.server = started;
		}
		catch (RuntimeException ex) {
			unlock();
			throw ex;
		}
	}

	/**
	 * Takes the data directory's lock, held until {@link #close()}. Kafka locks its log
	 * directories too, but only after it has loaded (and possibly truncated) the metadata
	 * log, which belongs to the running broker.
	 */
	private void lock() throws IOException {
		FileChannel channel = FileChannel.open(this.dataDir.resolve(LOCK_FILE), StandardOpenOption.CREATE,
				StandardOpenOption.WRITE);
		FileLock lock;
		try {
			lock = channel.tryLock();
		}
		catch (OverlappingFileLockException ex) {
			// held by a broker of this JVM
			lock = null;
		}
		if (lock == null) {
			channel.close();
			throw new DataDirectoryInUseException(this.dataDir);
		}
		this.lockFile = channel;
	}

	private void unlock() {
		if (this.lockFile != null) {
			try {
				this.lockFile.close();
			}
			catch (IOException ex) {
				logger.debug("Closing the lock of " + this.dataDir + " failed", ex);
			}
			this.lockFile = null;
		}
	}

	private void format() {
		try (PrintStream quiet = new PrintStream(PrintStream.nullOutputStream())) {
			new Formatter().setPrintStream(quiet)
				.setNodeId(1)
				.setClusterId(Uuid.randomUuid().toString())
				.setDirectories(Set.of(this.dataDir.toString()))
				.setMetadataLogDirectory(this.dataDir.toString())
				.setControllerListenerName("CONTROLLER")
				.setReleaseVersion(MetadataVersion.latestProduction())
				.run();
			logger.info("Formatted new Kafka storage in " + this.dataDir);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Cannot format Kafka storage in " + this.dataDir, ex);
		}
	}

	private Properties brokerConfig(int controllerPort) {
		Properties config = new Properties();
		config.put("process.roles", "broker,controller");
		config.put("node.id", "1");
		config.put("controller.quorum.voters", "1@" + HOST + ":" + controllerPort);
		Map<String, Integer> clientListeners = new LinkedHashMap<>();
		clientListeners.put("PLAINTEXT", this.port);
		List<String> saslListeners = new ArrayList<>();
		if (this.sasl != null) {
			clientListeners.put("SASL_PLAINTEXT", this.sasl.port());
			saslListeners.add("sasl_plaintext");
		}
		if (this.tls != null) {
			clientListeners.put("SSL", this.tls.sslPort());
			clientListeners.put("SASL_SSL", this.tls.saslSslPort());
			saslListeners.add("sasl_ssl");
			config.put("ssl.keystore.type", "PKCS12");
			config.put("ssl.keystore.location", this.tls.keyStore().toAbsolutePath().toString());
			config.put("ssl.keystore.password", this.tls.keyStorePassword());
			config.put("ssl.key.password", this.tls.keyStorePassword());
		}
		String advertised = clientListeners.entrySet()
			.stream()
			.map((listener) -> listener.getKey() + "://" + HOST + ":" + listener.getValue())
			.collect(Collectors.joining(","));
		config.put("listeners", advertised + ",CONTROLLER://" + HOST + ":" + controllerPort);
		config.put("advertised.listeners", advertised);
		config.put("controller.listener.names", "CONTROLLER");
		config.put("inter.broker.listener.name", "PLAINTEXT");
		config.put("listener.security.protocol.map",
				clientListeners.keySet()
					.stream()
					.map((name) -> name + ":" + name)
					.collect(Collectors.joining(",", "CONTROLLER:PLAINTEXT,", "")));
		if (this.sasl != null) {
			config.put("sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512,PLAIN");
		}
		for (String listener : saslListeners) {
			for (String scram : List.of("scram-sha-256", "scram-sha-512")) {
				config.put("listener.name." + listener + "." + scram + ".sasl.jaas.config",
						"org.apache.kafka.common.security.scram.ScramLoginModule required;");
			}
			config.put("listener.name." + listener + ".plain.sasl.jaas.config",
					"org.apache.kafka.common.security.plain.PlainLoginModule required user_" + this.sasl.plainUser()
							+ "=\"" + this.sasl.plainPassword() + "\";");
		}
		config.put("log.dirs", this.dataDir.toString());
		// One node: every internal topic has a single replica, and nothing waits for
		// peers.
		config.put("offsets.topic.replication.factor", "1");
		config.put("offsets.topic.num.partitions", "5");
		config.put("transaction.state.log.replication.factor", "1");
		config.put("transaction.state.log.min.isr", "1");
		config.put("share.coordinator.state.topic.replication.factor", "1");
		config.put("share.coordinator.state.topic.min.isr", "1");
		config.put("default.replication.factor", "1");
		config.put("min.insync.replicas", "1");
		config.put("group.initial.rebalance.delay.ms", "0");
		config.put("auto.create.topics.enable", "false");
		config.put("delete.topic.enable", "true");
		// Its clients are this process's few Kafka clients on the same machine: the
		// defaults (8 request handlers, 3 network threads, 10 background threads) are
		// sized for a dedicated broker and here only add thread switches on the
		// gateway's cores.
		int cores = Runtime.getRuntime().availableProcessors();
		config.put("num.io.threads", Integer.toString(Math.max(2, cores)));
		config.put("num.network.threads", Integer.toString(Math.max(1, Math.min(3, cores / 2))));
		config.put("background.threads", Integer.toString(Math.max(2, Math.min(10, cores))));
		// The controller appends a no-op record to the metadata log when it has written
		// nothing for this long, so that its readers see it alive; every such record is
		// flushed and handed to all of the broker's metadata publishers. Twice a second
		// (the default) serves a quorum with peers; a single node only pays for it.
		config.put("metadata.max.idle.interval.ms", "5000");
		// The log cleaner's key map, allocated on the heap whole when the broker starts:
		// 128 MiB by default, sized for a broker of large compacted topics. This one
		// compacts streamgate's definitions and cursors; 16 MiB map about 600,000 keys
		// per cleaning pass (a log with more is cleaned in several).
		config.put("log.cleaner.dedupe.buffer.size", Integer.toString(16 * 1024 * 1024));
		return config;
	}

	/**
	 * A SASL_PLAINTEXT listener.
	 *
	 * @param port its port
	 * @param plainUser the one user of the PLAIN mechanism
	 * @param plainPassword that user's password
	 */
	public record SaslListener(int port, String plainUser, String plainPassword) {
	}

	/**
	 * An SSL and a SASL_SSL listener (the latter with the SASL listener's mechanisms and
	 * users), both presenting the key store's certificate.
	 *
	 * @param sslPort the SSL listener's port
	 * @param saslSslPort the SASL_SSL listener's port
	 * @param keyStore a PKCS12 key store holding the broker's key and certificate
	 * @param keyStorePassword its password, also the key's
	 */
	public record TlsListeners(int sslPort, int saslSslPort, Path keyStore, String keyStorePassword) {
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("No free port on " + HOST, ex);
		}
	}

	/**
	 * Stops the broker and waits until it has released its storage.
	 */
	@Override
	public synchronized void close() {
		if (this.server != null) {
			this.server.shutdown();
			this.server.awaitShutdown();
			this.server = null;
		}
		unlock();
	}

	/**
	 * Starts the broker again on the same port and storage after {@link #close()}.
	 */
	public void restart() {
		startServer();
	}

}
