package dev.streamgate.support;

import java.time.Duration;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.web.reactive.server.WebTestClient;

import dev.streamgate.StreamgateApplication;

/**
 * A gateway started in this JVM with command-line arguments, as an operator would start
 * it.
 */
public final class RunningGateway implements AutoCloseable, JsonRequests {

	private final ConfigurableApplicationContext context;

	private final WebTestClient client;

	private RunningGateway(ConfigurableApplicationContext context) {
		this.context = context;
		String port = context.getEnvironment().getProperty("local.server.port");
		this.client = WebTestClient.bindToServer()
			.baseUrl("http://localhost:" + port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	/**
	 * Starts a gateway.
	 * @param args command-line arguments
	 * @return the running gateway
	 */
	public static RunningGateway start(String... args) {
		return new RunningGateway(SpringApplication.run(StreamgateApplication.class, args));
	}

	@Override
	public WebTestClient client() {
		return this.client;
	}

	@Override
	public String baseUrl() {
		return "http://localhost:" + this.context.getEnvironment().getProperty("local.server.port");
	}

	public ConfigurableApplicationContext context() {
		return this.context;
	}

	/**
	 * The HTTP status of the readiness probe.
	 * @return 200 when ready, 503 when not
	 */
	public int readinessStatus() {
		return readinessStatus(this.client);
	}

	static int readinessStatus(WebTestClient client) {
		return client.get().uri("/actuator/health/readiness").exchange().returnResult(String.class).getStatus().value();
	}

	@Override
	public void close() {
		this.context.close();
	}

}
