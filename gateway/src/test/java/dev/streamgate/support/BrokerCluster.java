package dev.streamgate.support;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

import static org.awaitility.Awaitility.await;

/**
 * A KRaft cluster of three nodes, each broker and controller in a JVM of its own, set up
 * as a production cluster is: internal and default topics with three replicas and
 * {@code min.insync.replicas=2}, so that it keeps taking writes with one node down. A
 * test kills one node with SIGKILL and starts it again on the same ports and storage.
 * Broker liveness is Kafka's default: a killed node's partitions move after
 * {@code broker.session.timeout.ms} (9 s).
 */
public final class BrokerCluster implements AutoCloseable {

	private static final String HOST = "127.0.0.1";

	private final List<Integer> clientPorts;

	private final List<Integer> controllerPorts;

	private final Path dir;

	private final String clusterId = Uuid.randomUuid().toString();

	private final Process[] processes;

	private BrokerCluster(Path dir, int size) {
		this.dir = dir;
		this.clientPorts = IntStream.range(0, size).mapToObj((i) -> GatewayProcess.freePort()).toList();
		this.controllerPorts = IntStream.range(0, size).mapToObj((i) -> GatewayProcess.freePort()).toList();
		this.processes = new Process[size];
	}

	/**
	 * Starts three nodes and waits until the cluster creates a topic with three replicas.
	 * @param dir storage and console output of the nodes
	 * @return the running cluster
	 */
	public static BrokerCluster start(Path dir) {
		BrokerCluster cluster = new BrokerCluster(dir, 3);
		for (int node = 1; node <= 3; node++) {
			cluster.launch(node);
		}
		for (int node = 1; node <= 3; node++) {
			cluster.awaitAccepting(node);
		}
		try (Admin admin = cluster.admin()) {
			await().atMost(Duration.ofSeconds(60))
				.pollInterval(Duration.ofMillis(500))
				.ignoreExceptions()
				.until(() -> admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size() == 3);
		}
		return cluster;
	}

	public String bootstrapServers() {
		return this.clientPorts.stream().map((port) -> HOST + ":" + port).collect(Collectors.joining(","));
	}

	/**
	 * An admin client of the cluster.
	 * @return a client the caller closes
	 */
	public Admin admin() {
		return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
	}

	/**
	 * The node that leads a partition now.
	 * @param topic the Kafka topic
	 * @param partition the partition
	 * @return the node id (1 to 3)
	 */
	public int leaderOf(String topic, int partition) {
		try (Admin admin = admin()) {
			TopicDescription description = admin.describeTopics(Set.of(topic))
				.allTopicNames()
				.get(30, TimeUnit.SECONDS)
				.get(topic);
			Node leader = description.partitions().get(partition).leader();
			return leader.id();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Cannot describe " + topic, ex);
		}
	}

	/**
	 * Kills a node with SIGKILL and waits until its client port is closed.
	 * @param node its id, 1 to 3
	 */
	public synchronized void kill(int node) {
		Process process = this.processes[node - 1];
		process.destroyForcibly();
		try {
			process.waitFor(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> !accepting(node));
	}

	/**
	 * Starts a killed node again on its ports and storage.
	 * @param node its id, 1 to 3
	 */
	public synchronized void restart(int node) {
		launch(node);
		awaitAccepting(node);
	}

	private void launch(int node) {
		List<String> arguments = new ArrayList<>(List.of(this.dir.resolve("node-" + node).toString(),
				Integer.toString(node), this.clusterId, Integer.toString(this.clientPorts.get(node - 1))));
		arguments.add(voters());
		List<String> command = JavaCommand.of(List.of("-Xmx512m"), BrokerCluster.class, arguments);
		try {
			this.processes[node - 1] = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.dir.resolve("node-" + node + ".log").toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private String voters() {
		return IntStream.range(0, this.controllerPorts.size())
			.mapToObj((i) -> (i + 1) + "@" + HOST + ":" + this.controllerPorts.get(i))
			.collect(Collectors.joining(","));
	}

	private void awaitAccepting(int node) {
		await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> accepting(node));
	}

	private boolean accepting(int node) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(HOST, this.clientPorts.get(node - 1)), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	@Override
	public synchronized void close() {
		for (Process process : this.processes) {
			if (process != null && process.isAlive()) {
				process.destroy();
			}
		}
		for (Process process : this.processes) {
			try {
				if (process != null && !process.waitFor(30, TimeUnit.SECONDS)) {
					process.destroyForcibly();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				process.destroyForcibly();
			}
		}
	}

	/**
	 * Runs one node until the process is stopped.
	 * @param args its storage directory, node id, the cluster id, its client port and the
	 * quorum's voters ({@code id@host:port,...})
	 * @throws Exception when it cannot start
	 */
	public static void main(String[] args) throws Exception {
		Path dataDir = Path.of(args[0]);
		int nodeId = Integer.parseInt(args[1]);
		String voters = args[4];
		int controllerPort = Integer.parseInt(voters.split(",")[nodeId - 1].replaceAll(".*:", ""));
		Properties config = new Properties();
		config.put("process.roles", "broker,controller");
		config.put("node.id", Integer.toString(nodeId));
		config.put("controller.quorum.voters", voters);
		config.put("listeners", "PLAINTEXT://" + HOST + ":" + args[3] + ",CONTROLLER://" + HOST + ":" + controllerPort);
		config.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + args[3]);
		config.put("controller.listener.names", "CONTROLLER");
		config.put("inter.broker.listener.name", "PLAINTEXT");
		config.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
		config.put("log.dirs", dataDir.toString());
		config.put("offsets.topic.replication.factor", "3");
		config.put("offsets.topic.num.partitions", "5");
		config.put("transaction.state.log.replication.factor", "3");
		config.put("transaction.state.log.min.isr", "2");
		config.put("transaction.state.log.num.partitions", "5");
		config.put("share.coordinator.state.topic.replication.factor", "3");
		config.put("share.coordinator.state.topic.min.isr", "2");
		config.put("default.replication.factor", "3");
		config.put("min.insync.replicas", "2");
		config.put("group.initial.rebalance.delay.ms", "0");
		config.put("auto.create.topics.enable", "false");
		config.put("num.io.threads", "2");
		config.put("num.network.threads", "1");
		config.put("background.threads", "2");
		config.put("log.cleaner.dedupe.buffer.size", Integer.toString(16 * 1024 * 1024));
		Files.createDirectories(dataDir);
		if (!Files.exists(dataDir.resolve("meta.properties"))) {
			try (PrintStream quiet = new PrintStream(PrintStream.nullOutputStream())) {
				new Formatter().setPrintStream(quiet)
					.setNodeId(nodeId)
					.setClusterId(args[2])
					.setDirectories(Set.of(dataDir.toString()))
					.setMetadataLogDirectory(dataDir.toString())
					.setControllerListenerName("CONTROLLER")
					.setReleaseVersion(MetadataVersion.latestProduction())
					.run();
			}
		}
		KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(config, false), Time.SYSTEM);
		server.startup();
		CountDownLatch stopped = new CountDownLatch(1);
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			server.shutdown();
			server.awaitShutdown();
			stopped.countDown();
		}));
		System.out.println("Node " + nodeId + " ready on " + HOST + ":" + args[3]);
		stopped.await();
	}

}
