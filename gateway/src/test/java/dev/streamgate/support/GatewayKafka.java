package dev.streamgate.support;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * Points a gateway under test at the shared test broker, with Kafka topics of its own,
 * and security off: tests of other features need no tokens.
 */
public final class GatewayKafka {

	private GatewayKafka() {
	}

	/**
	 * Registers the shared broker and a fresh topic prefix.
	 * @param registry the test's dynamic properties
	 */
	public static void register(DynamicPropertyRegistry registry) {
		String prefix = TestKafka.uniquePrefix();
		registry.add("spring.kafka.bootstrap-servers", TestKafka::bootstrapServers);
		registry.add("streamgate.kafka.topic-prefix", () -> prefix);
		// These tests are about other things; SecurityIntegrationTests covers tokens.
		registry.add("streamgate.security.enabled", () -> "false");
		// Pollers and webhooks of tests reach this machine only, never the internet.
		registry.add("streamgate.egress.allow-public", () -> "false");
	}

	/**
	 * Command-line style arguments for a gateway started by hand on the shared broker.
	 * @param prefix the Kafka topic prefix
	 * @return the arguments
	 */
	public static String[] arguments(String prefix) {
		return new String[] { "--server.port=0", "--spring.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
				"--streamgate.kafka.topic-prefix=" + prefix, "--streamgate.security.enabled=false",
				"--streamgate.egress.allow-public=false" };
	}

	/**
	 * Arguments for a gateway started in this JVM on the shared broker with a fresh topic
	 * prefix, allowed to reach this machine's loopback address (test endpoints, sources
	 * and brokers).
	 * @return the arguments
	 */
	public static String[] loopbackArguments() {
		List<String> args = new ArrayList<>(List.of(arguments(TestKafka.uniquePrefix())));
		args.add("--streamgate.egress.allowed-cidrs=127.0.0.1/32");
		return args.toArray(String[]::new);
	}

	/**
	 * Arguments for a {@link GatewayProcess} on the shared broker with a fresh topic
	 * prefix, allowed to reach this machine's loopback address (test endpoints and
	 * brokers).
	 * @param dir where its unused embedded-broker directory points
	 * @return the arguments
	 */
	public static String[] processArguments(Path dir) {
		List<String> args = new ArrayList<>(List.of(loopbackArguments()));
		args.remove("--server.port=0");
		args.add("--streamgate.embedded-kafka.data-dir=" + dir.resolve("unused"));
		return args.toArray(String[]::new);
	}

}
