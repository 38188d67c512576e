package dev.streamgate.core.oauth;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import dev.streamgate.core.egress.EgressGuard;
import dev.streamgate.core.egress.EgressProperties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Client credentials tokens against a token endpoint on loopback that answers as RFC 6749
 * says.
 */
class AccessTokensTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final List<Request> requests = new CopyOnWriteArrayList<>();

	private final AtomicInteger issued = new AtomicInteger();

	private volatile long expiresIn = 3600;

	private volatile Duration delay = Duration.ZERO;

	private DisposableServer server;

	private final EgressGuard guard = new EgressGuard(new EgressProperties(List.of("127.0.0.1/32"), true));

	private AccessTokens tokens;

	@BeforeEach
	void start() {
		this.server = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.route((routes) -> routes.post("/token",
					(request, response) -> request.receive()
						.aggregate()
						.asString(StandardCharsets.UTF_8)
						.defaultIfEmpty("")
						.flatMap((body) -> {
							Request seen = new Request(request.requestHeaders().get("Authorization"), form(body));
							this.requests.add(seen);
							boolean basic = ("Basic " + Base64.getEncoder().encodeToString("id:secret".getBytes()))
								.equals(seen.authorization());
							boolean post = "id".equals(seen.form().get("client_id"))
									&& "secret".equals(seen.form().get("client_secret"));
							if (!basic && !post) {
								return response.status(401)
									.header("Content-Type", "application/json")
									.sendString(Mono
										.just("{\"error\":\"invalid_client\",\"error_description\":\"Bad client\"}"))
									.then();
							}
							return Mono.delay(this.delay)
								.then(response.header("Content-Type", "application/json")
									.sendString(Mono.just("{\"access_token\":\"t-" + this.issued.incrementAndGet()
											+ "\",\"token_type\":\"Bearer\",\"expires_in\":" + this.expiresIn + "}"))
									.then());
						})))
			.bindNow();
		this.tokens = new AccessTokens(this.guard, Duration.ofSeconds(2), Clock.systemUTC());
	}

	@AfterEach
	void stop() {
		this.server.disposeNow();
		this.guard.close();
	}

	@Test
	void aTokenIsFetchedOnceAndSharedByConcurrentCallers() {
		ClientCredentials credentials = credentials("secret", null);
		List<String> values = Flux.range(0, 20)
			.flatMap((i) -> this.tokens.token(credentials))
			.collectList()
			.block(WAIT);
		assertThat(values).hasSize(20).containsOnly("t-1");
		assertThat(this.tokens.token(credentials).block(WAIT)).isEqualTo("t-1");
		assertThat(this.requests).hasSize(1);
		Request request = this.requests.get(0);
		assertThat(request.form()).containsEntry("grant_type", "client_credentials")
			.containsEntry("scope", "a b")
			.containsEntry("audience", "https://api.example.test")
			.doesNotContainKey("client_secret");
	}

	@Test
	void aTokenIsRenewedShortlyBeforeItExpires() throws InterruptedException {
		this.expiresIn = 2;
		ClientCredentials credentials = credentials("secret", null);
		assertThat(this.tokens.token(credentials).block(WAIT)).isEqualTo("t-1");
		Thread.sleep(1000);
		assertThat(this.tokens.token(credentials).block(WAIT)).as("1 s of its 2").isEqualTo("t-1");
		// Kept until a fifth of its life is left: 1.6 s.
		Thread.sleep(800);
		assertThat(this.tokens.token(credentials).block(WAIT)).isEqualTo("t-2");
		assertThat(this.requests).hasSize(2);
	}

	@Test
	void aRejectedTokenIsReplacedOnceAndAnOlderRejectionChangesNothing() {
		ClientCredentials credentials = credentials("secret", null);
		String first = this.tokens.token(credentials).block(WAIT);
		this.tokens.reject(credentials, first);
		String second = this.tokens.token(credentials).block(WAIT);
		assertThat(second).isEqualTo("t-2");
		// Another request that was sent with the first token is answered 401 later.
		this.tokens.reject(credentials, first);
		assertThat(this.tokens.token(credentials).block(WAIT)).isEqualTo("t-2");
		assertThat(this.requests).hasSize(2);
	}

	@Test
	void clientSecretPostSendsTheCredentialsInTheForm() {
		ClientCredentials credentials = new ClientCredentials(tokenUrl(), "id", "secret", null, null,
				ClientCredentials.Authentication.POST);
		assertThat(this.tokens.token(credentials).block(WAIT)).isEqualTo("t-1");
		assertThat(this.requests.get(0).authorization()).isNull();
		assertThat(this.requests.get(0).form()).containsEntry("client_id", "id").doesNotContainKey("scope");
	}

	@Test
	void refusedCredentialsSayWhyWithoutTheSecretAndAreAskedAgainNextTime() {
		ClientCredentials credentials = credentials("wrong-secret", null);
		for (int i = 0; i < 2; i++) {
			assertThatExceptionOfType(AccessTokenException.class)
				.isThrownBy(() -> this.tokens.token(credentials).block(WAIT))
				.withMessage("The token endpoint refused the client credentials: invalid_client (Bad client)");
		}
		assertThat(this.requests).hasSize(2);
		assertThat(credentials.toString()).doesNotContain("wrong-secret");
	}

	@Test
	void unreachableSlowAndForbiddenEndpointsAreFailuresThatSaySo() {
		ClientCredentials closed = new ClientCredentials(URI.create("http://127.0.0.1:1/token"), "id", "secret", null,
				null, null);
		assertThatExceptionOfType(AccessTokenException.class).isThrownBy(() -> this.tokens.token(closed).block(WAIT))
			.withMessageStartingWith("The token endpoint could not be reached");
		ClientCredentials internal = new ClientCredentials(URI.create("http://127.0.0.2:9/token"), "id", "secret", null,
				null, null);
		assertThatExceptionOfType(AccessTokenException.class).isThrownBy(() -> this.tokens.token(internal).block(WAIT))
			.withMessageStartingWith("The token endpoint's address is not allowed");
		this.delay = Duration.ofSeconds(4);
		assertThatExceptionOfType(AccessTokenException.class)
			.isThrownBy(() -> this.tokens.token(credentials("secret", null)).block(WAIT))
			.withMessage("The token endpoint did not answer in time");
	}

	private ClientCredentials credentials(String secret, ClientCredentials.Authentication authentication) {
		return new ClientCredentials(tokenUrl(), "id", secret, "a b", "https://api.example.test", authentication);
	}

	private URI tokenUrl() {
		return URI.create("http://127.0.0.1:" + this.server.port() + "/token");
	}

	private static Map<String, String> form(String body) {
		return Stream.of(body.split("&"))
			.filter((pair) -> !pair.isEmpty())
			.map((pair) -> pair.split("=", 2))
			.collect(Collectors.toMap((pair) -> URLDecoder.decode(pair[0], StandardCharsets.UTF_8),
					(pair) -> URLDecoder.decode((pair.length > 1) ? pair[1] : "", StandardCharsets.UTF_8)));
	}

	private record Request(String authorization, Map<String, String> form) {
	}

}
