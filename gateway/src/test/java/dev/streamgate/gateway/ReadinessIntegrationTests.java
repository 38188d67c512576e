package dev.streamgate.gateway;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;

import dev.streamgate.storage.kafka.EmbeddedKafkaBroker;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.Sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class ReadinessIntegrationTests {

	@TempDir
	Path brokerDir;

	@Test
	void anIngestNodeIsNotReadyWhileKafkaAnswersButRefusesItsWrites() {
		// One broker, and topics that ask for two in-sync replicas: Kafka answers every
		// request but refuses every acknowledged write, as a cluster does with two of
		// three brokers down.
		try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(this.brokerDir, 0);
				RunningGateway gateway = RunningGateway.start("--server.port=0",
						"--spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
						"--streamgate.kafka.min-insync-replicas=2", "--streamgate.kafka.write-timeout=3s",
						"--streamgate.security.enabled=false")) {
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> gateway.client()
					.get()
					.uri("/actuator/health/readiness")
					.exchange()
					.expectStatus()
					.isEqualTo(503)
					.expectBody()
					.jsonPath("$.components.kafka.details.writable")
					.isEqualTo(false)
					.jsonPath("$.components.kafka.details.reason")
					.value((String reason) -> assertThat(reason).contains("min.insync.replicas is 2")));
			gateway.client().get().uri("/actuator/health/liveness").exchange().expectStatus().isOk();
		}
	}

	@Test
	void readinessIsDownAndWritesAnswer503WhileKafkaIsUnreachableAndRecoverAfter() {
		try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(this.brokerDir, 0);
				RunningGateway gateway = RunningGateway.start("--server.port=0",
						"--spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
						"--streamgate.kafka.write-timeout=3s", "--streamgate.security.enabled=false")) {
			await().atMost(Duration.ofSeconds(15)).until(() -> gateway.readinessStatus() == 200);
			gateway.client()
				.post()
				.uri("/api/v1/topics")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"id\":\"before-outage\"}")
				.exchange()
				.expectStatus()
				.isCreated();

			broker.close();
			await().atMost(Duration.ofSeconds(20)).until(() -> gateway.readinessStatus() == 503);
			gateway.client().get().uri("/actuator/health/liveness").exchange().expectStatus().isOk();
			gateway.client()
				.post()
				.uri("/api/v1/topics")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"id\":\"during-outage\"}")
				.exchange()
				.expectStatus()
				.isEqualTo(503)
				.expectHeader()
				.exists("Retry-After")
				.expectHeader()
				.contentType(MediaType.APPLICATION_PROBLEM_JSON)
				.expectBody()
				.jsonPath("$.type")
				.isEqualTo("https://streamgate.dev/problems/kafka-unavailable");

			gateway.client()
				.post()
				.uri("/api/v1/publish/before-outage")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"lost\":false}")
				.exchange()
				.expectStatus()
				.isEqualTo(503)
				.expectHeader()
				.exists("Retry-After")
				.expectBody()
				.jsonPath("$.type")
				.isEqualTo("https://streamgate.dev/problems/kafka-unavailable");

			// A stream that cannot start following its topic is refused before its first
			// byte.
			gateway.client()
				.get()
				.uri("/api/v1/stream/before-outage")
				.accept(MediaType.TEXT_EVENT_STREAM)
				.exchange()
				.expectStatus()
				.isEqualTo(503)
				.expectHeader()
				.contentType(MediaType.APPLICATION_PROBLEM_JSON);

			broker.restart();
			await().atMost(Duration.ofSeconds(60)).until(() -> gateway.readinessStatus() == 200);
			gateway.client()
				.post()
				.uri("/api/v1/topics")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"id\":\"after-outage\"}")
				.exchange()
				.expectStatus()
				.isCreated();
			gateway.client()
				.post()
				.uri("/api/v1/publish/before-outage")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"after\":true}")
				.exchange()
				.expectStatus()
				.isAccepted();
			// and streams work again once Kafka is back
			List<ServerSentEvent<String>> replay = new Sse(gateway.baseUrl())
				.take("/api/v1/stream/before-outage?lastEventId=earliest", null, 1);
			assertThat(replay.get(0).data()).isEqualTo("{\"after\":true}");
		}
	}

}
