package dev.streamgate.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

import dev.streamgate.support.AbortedRequests;
import dev.streamgate.support.BrokerProcess;
import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.Tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A stream leak found by outside probing, with security on as by default: stream requests
 * with a valid token, each closed with a reset (SO_LINGER 0) as soon as it is sent, so
 * that the connection is gone while the token is checked. Afterwards no stream is counted
 * and the same address opens streams again (it got 429 for ever after 100).
 */
@Tag("faults")
class AbortedStreamsFaultTests {

	private static final String SECRET = "an-aborted-streams-hmac-secret-of-32-bytes";

	@Test
	void streamRequestsResetDuringTheTokenCheckLeaveNothingCounted(@TempDir Path dir) throws Exception {
		int aborts = Accounts.full() ? 5_000 : 500;
		try (BrokerProcess broker = BrokerProcess.start(dir.resolve("kafka"), dir.resolve("broker.log"));
				GatewayProcess gateway = GatewayProcess.startReady(dir.resolve("gateway.log"), GatewayCrashFaultTests
					.withBroker(new String[] { "--streamgate.security.jwt.secret=" + SECRET }, broker))) {
			String token = Tokens.hs256(SECRET, Map.of("admin", true), Instant.now().plus(Duration.ofHours(1)));
			WebClient client = WebClient.builder()
				.baseUrl(gateway.baseUrl())
				.defaultHeader(HttpHeaders.AUTHORIZATION, "Bearer " + token)
				.build();
			client.post()
				.uri("/api/v1/topics")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"id\":\"c\"}")
				.retrieve()
				.toBodilessEntity()
				.block(Duration.ofSeconds(30));
			AbortedRequests.send(gateway.baseUrl(), "/api/v1/stream/c", token, aborts);
			await("no aborted stream left counted").atMost(Duration.ofSeconds(30)).until(() -> streams(client) == 0);
			int status = client.get()
				.uri("/api/v1/stream/c")
				.accept(MediaType.TEXT_EVENT_STREAM)
				.exchangeToFlux((response) -> Flux.just(response.statusCode().value()))
				.blockFirst(Duration.ofSeconds(30));
			assertThat(status).isEqualTo(200);
			System.out.printf("%d stream requests reset during the token check: 0 streams counted afterwards%n",
					aborts);
		}
	}

	private static int streams(WebClient client) {
		String metrics = client.get().uri("/actuator/prometheus").retrieve().bodyToMono(String.class).block();
		return metrics.lines()
			.filter((line) -> line.startsWith("streamgate_sse_clients{"))
			.mapToInt((line) -> (int) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
			.sum();
	}

}
