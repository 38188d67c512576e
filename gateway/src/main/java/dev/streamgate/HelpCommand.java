package dev.streamgate;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Properties;

/**
 * {@code --help} and {@code --version}: print and exit, before anything starts (no
 * broker, no data directory, no port).
 */
final class HelpCommand {

	static final String USAGE = """
			Usage: java -jar streamgate.jar [--config.key=value ...]
			       java -jar streamgate.jar token [options]   (a scoped token; token --help)
			       java -jar streamgate.jar --help | --version
			Starts the streamgate gateway. Every configuration key can be given as --key=value,
			as an environment variable (STREAMGATE_ROLES) or in application.yml. Common ones:
			  --server.port=8080                           the HTTP port
			  --streamgate.roles=all                       the roles this node runs: all, or some of
			                                               admin, ingest, http-poller, kafka-publisher,
			                                               stream (SSE and WebSocket), webhook,
			                                               mercure (the hub at /.well-known/mercure)
			  --streamgate.storage=memory                  keep everything in this process, no Kafka
			                                               (one node; nothing kept across a restart)
			  --spring.kafka.bootstrap-servers=host:9092   use these brokers; unset starts the
			                                               embedded one (standalone mode)
			  --streamgate.embedded-kafka.data-dir=./data/kafka   the embedded broker's storage
			                                               (one gateway at a time may use it)
			  --streamgate.security.jwt.secret=...         the HS256 key of tokens
			  --streamgate.egress.allowed-cidrs=127.0.0.1/32   private ranges pollers and
			                                               webhooks may reach anyway
			All keys: docs/configuration.md.
			""";

	private static final List<String> HELP = List.of("--help", "-h");

	private static final List<String> VERSION = List.of("--version", "-V");

	private HelpCommand() {
	}

	/**
	 * Whether the command line asks for the usage or the version.
	 * @param args the command line
	 * @return true when it does
	 */
	static boolean isCalled(String[] args) {
		return List.of(args).stream().anyMatch((arg) -> HELP.contains(arg) || VERSION.contains(arg));
	}

	/**
	 * Prints the usage, or the version when only that was asked for.
	 * @param args the command line
	 * @param out where it goes
	 * @return the exit code, 0
	 */
	static int run(String[] args, PrintStream out) {
		if (List.of(args).stream().anyMatch(HELP::contains)) {
			out.print(USAGE);
		}
		else {
			out.println("streamgate " + version());
		}
		return 0;
	}

	/**
	 * The version the build wrote into {@code META-INF/build-info.properties}.
	 * @return the version, or {@code unknown} when run from classes the build did not
	 * package
	 */
	static String version() {
		try (InputStream in = HelpCommand.class.getResourceAsStream("/META-INF/build-info.properties")) {
			if (in == null) {
				return "unknown";
			}
			Properties info = new Properties();
			info.load(in);
			return info.getProperty("build.version", "unknown");
		}
		catch (IOException ex) {
			return "unknown";
		}
	}

}
