package dev.streamgate.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;

import dev.streamgate.core.event.EventStorageProperties;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.storage.kafka.EmbeddedKafkaBroker;

/**
 * The one real Kafka broker shared by every test of a test JVM: Testcontainers' Kafka
 * when a Docker engine is present, otherwise the in-JVM KRaft broker of standalone mode.
 */
public final class TestKafka {

	private static final String IMAGE = "apache/kafka:4.2.1";

	private static String bootstrapServers;

	private TestKafka() {
	}

	/**
	 * The shared broker's address, starting it on first use.
	 * @return {@code host:port}
	 */
	public static synchronized String bootstrapServers() {
		if (bootstrapServers == null) {
			bootstrapServers = dockerAvailable() ? startContainer() : startEmbedded();
		}
		return bootstrapServers;
	}

	/**
	 * The shared event log as the application configures it by default.
	 * @return the default storage settings
	 */
	public static EventStorageProperties eventStorage() {
		return new EventStorageProperties(12, Topic.DEFAULT_RETENTION);
	}

	/**
	 * A Kafka topic prefix no other test uses, so that tests sharing the broker never see
	 * each other's topics.
	 * @return a prefix ending in a dot
	 */
	public static String uniquePrefix() {
		return "t" + UUID.randomUUID().toString().substring(0, 8) + ".";
	}

	private static boolean dockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	@SuppressWarnings("resource")
	private static String startContainer() {
		KafkaContainer container = new KafkaContainer(IMAGE);
		container.start();
		Runtime.getRuntime().addShutdownHook(new Thread(container::stop));
		return container.getBootstrapServers();
	}

	private static String startEmbedded() {
		Path dir = temporaryDirectory("streamgate-test-kafka");
		EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir, 0);
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			broker.close();
			deleteRecursively(dir);
		}));
		return broker.bootstrapServers();
	}

	/**
	 * A new temporary directory.
	 * @param prefix its name's prefix
	 * @return the directory
	 */
	public static Path temporaryDirectory(String prefix) {
		try {
			return Files.createTempDirectory(prefix);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Deletes a directory tree, ignoring what cannot be deleted.
	 * @param dir the directory
	 */
	public static void deleteRecursively(Path dir) {
		try (Stream<Path> paths = Files.walk(dir)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// best effort: the OS cleans its temporary directory
		}
	}

}
