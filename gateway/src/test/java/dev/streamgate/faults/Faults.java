package dev.streamgate.faults;

import java.time.Duration;

import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Small calls the fault scenarios share.
 */
final class Faults {

	private Faults() {
	}

	/**
	 * POSTs JSON and insists on a 2xx answer.
	 */
	static void post(String baseUrl, String path, String json) {
		WebClient.create(baseUrl)
			.post()
			.uri(path)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(json)
			.retrieve()
			.toBodilessEntity()
			.block(Duration.ofSeconds(30));
	}

	/**
	 * The gateway's metrics in Prometheus' text format.
	 */
	static String prometheus(String baseUrl) {
		return WebClient.create(baseUrl)
			.get()
			.uri("/actuator/prometheus")
			.retrieve()
			.bodyToMono(String.class)
			.block(Duration.ofSeconds(10));
	}

	/**
	 * The status of a GET, or -1 when there is no answer.
	 */
	static int status(String baseUrl, String path) {
		try {
			return WebClient.create(baseUrl)
				.get()
				.uri(path)
				.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value()))
				.block(Duration.ofSeconds(10));
		}
		catch (RuntimeException ex) {
			return -1;
		}
	}

}
