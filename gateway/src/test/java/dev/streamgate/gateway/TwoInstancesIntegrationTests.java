package dev.streamgate.gateway;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.MediaType;

import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@ExtendWith(OutputCaptureExtension.class)
class TwoInstancesIntegrationTests {

	private static final Duration WITHIN_A_SECOND = Duration.ofSeconds(1);

	@Test
	void twoGatewaysOnOneKafkaSeeEachOthersWritesWithinASecond(CapturedOutput output) {
		String prefix = TestKafka.uniquePrefix();
		try (RunningGateway a = RunningGateway.start(GatewayKafka.arguments(prefix));
				RunningGateway b = RunningGateway.start(GatewayKafka.arguments(prefix))) {
			assertThat(output).contains("Kafka: using the brokers at " + TestKafka.bootstrapServers());
			a.client()
				.post()
				.uri("/api/v1/topics")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"id\":\"shared\",\"name\":\"from a\"}")
				.exchange()
				.expectStatus()
				.isCreated();
			await().atMost(WITHIN_A_SECOND)
				.pollInterval(Duration.ofMillis(20))
				.untilAsserted(() -> b.client().get().uri("/api/v1/topics/shared").exchange().expectStatus().isOk());

			b.client()
				.patch()
				.uri("/api/v1/topics/shared")
				.contentType(MediaType.parseMediaType("application/merge-patch+json"))
				.bodyValue("{\"name\":\"from b\"}")
				.exchange()
				.expectStatus()
				.isOk();
			await().atMost(WITHIN_A_SECOND)
				.pollInterval(Duration.ofMillis(20))
				.untilAsserted(() -> a.client()
					.get()
					.uri("/api/v1/topics/shared")
					.exchange()
					.expectBody()
					.jsonPath("$.name")
					.isEqualTo("from b"));

			a.client().delete().uri("/api/v1/topics/shared").exchange().expectStatus().isNoContent();
			await().atMost(WITHIN_A_SECOND)
				.pollInterval(Duration.ofMillis(20))
				.untilAsserted(
						() -> b.client().get().uri("/api/v1/topics/shared").exchange().expectStatus().isNotFound());
		}
	}

}
