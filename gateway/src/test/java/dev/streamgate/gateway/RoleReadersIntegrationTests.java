package dev.streamgate.gateway;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node reads the configuration logs its roles use, and not the high-volume ones it does
 * not: the delivery attempts (a record per webhook delivery) only where the admin API
 * lists them, the webhook cursors (committed every second per webhook) only where
 * webhooks are delivered or their status served.
 */
class RoleReadersIntegrationTests {

	@Test
	void aStreamingNodeReadsNeitherTheDeliveryAttemptsNorTheWebhookCursors() {
		String prefix = TestKafka.uniquePrefix();
		try (RunningGateway stream = RunningGateway.start(arguments(prefix, "stream"))) {
			await().atMost(Duration.ofSeconds(30)).until(() -> readers(prefix).contains("topics"));
			assertThat(readers(prefix)).doesNotContain("attempts", "cursors");
		}
		try (RunningGateway webhook = RunningGateway.start(arguments(prefix, "webhook"))) {
			await().atMost(Duration.ofSeconds(30)).until(() -> readers(prefix).contains("cursors"));
			assertThat(readers(prefix)).doesNotContain("attempts");
		}
		try (RunningGateway admin = RunningGateway.start(arguments(prefix, "admin"))) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> readers(prefix).containsAll(List.of("attempts", "cursors")));
		}
	}

	private static String[] arguments(String prefix, String roles) {
		return Stream.concat(Stream.of(GatewayKafka.arguments(prefix)), Stream.of("--streamgate.roles=" + roles))
			.toArray(String[]::new);
	}

	/** The logs of this prefix that a reader thread of this JVM follows now. */
	private static Set<String> readers(String prefix) {
		String name = "streamgate-log-" + prefix;
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter(Thread::isAlive)
			.map(Thread::getName)
			.filter((thread) -> thread.startsWith(name))
			.map((thread) -> thread.substring(name.length()))
			.collect(Collectors.toSet());
	}

}
