package dev.streamgate.publish;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.ProblemAssertions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A publication that the ingest limit lets through but Kafka cannot take in one record is
 * refused for its size (413), not answered as an outage (503 with Retry-After, which a
 * client retries for ever).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "streamgate.ingest.max-payload=4MB")
@AutoConfigureWebTestClient
class LargePublicationIntegrationTests {

	@DynamicPropertySource
	static void kafka(DynamicPropertyRegistry registry) {
		GatewayKafka.register(registry);
	}

	@Autowired
	private WebTestClient client;

	@Test
	void aPublicationLargerThanKafkaTakesIsAProblemOfSizeNotAnOutage() {
		this.client.post()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"id\":\"large\"}")
			.exchange()
			.expectStatus()
			.isCreated();
		String body = "\"" + "x".repeat(2 * 1024 * 1024) + "\"";
		ProblemAssertions.expectProblem(publish(body), 413, "payload-too-large");
		publish(body).expectBody()
			.jsonPath("$.detail")
			.value((String detail) -> assertThat(detail).contains("max.request.size"));
		publish("{\"small\":true}").expectStatus().isAccepted();
	}

	private WebTestClient.ResponseSpec publish(String body) {
		return this.client.post()
			.uri("/api/v1/publish/large")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(body)
			.exchange();
	}

}
