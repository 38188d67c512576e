package dev.streamgate.web;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.Http11SslContextSpec;
import reactor.netty.http.Http2SslContextSpec;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.client.HttpClient;

import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.SelfSignedCertificate;
import dev.streamgate.support.TcpProxy;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * HTTP/2 beside HTTP/1.1: in plain text (h2c) many streams and publications share one
 * connection; with TLS configured, ALPN picks h2, and HTTP/1.1 clients are still served.
 */
class Http2IntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	@TempDir
	Path work;

	private static RunningGateway start(String... more) {
		List<String> args = new ArrayList<>(List.of("--server.port=0",
				"--spring.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
				"--streamgate.kafka.topic-prefix=" + TestKafka.uniquePrefix(), "--streamgate.security.enabled=false"));
		args.addAll(List.of(more));
		return RunningGateway.start(args.toArray(String[]::new));
	}

	private static int port(RunningGateway gateway) {
		return Integer.parseInt(gateway.context().getEnvironment().getProperty("local.server.port"));
	}

	@Test
	void twentyStreamsAndTheirPublicationsShareOneH2cConnection() throws Exception {
		try (RunningGateway gateway = start("--streamgate.sse.heartbeat=1s");
				TcpProxy proxy = TcpProxy.to(port(gateway))) {
			HttpClient h2c = HttpClient.create()
				.protocol(HttpProtocol.H2C)
				.baseUrl("http://127.0.0.1:" + proxy.port())
				.responseTimeout(TIMEOUT);
			List<StringBuffer> streams = new ArrayList<>();
			List<Disposable> open = new ArrayList<>();
			AtomicReference<HttpVersion> version = new AtomicReference<>();
			for (int i = 0; i < 20; i++) {
				assertThat(post(h2c, "/api/v1/topics", "{\"id\":\"h2-" + i + "\"}")).isEqualTo(201);
				StringBuffer received = new StringBuffer();
				streams.add(received);
				open.add(h2c.headers((headers) -> headers.set(HttpHeaderNames.ACCEPT, "text/event-stream"))
					.get()
					.uri("/api/v1/stream/h2-" + i)
					.response((response, body) -> {
						version.set(response.version());
						return body.asString();
					})
					.subscribe(received::append));
				await().atMost(TIMEOUT).until(() -> received.indexOf("retry:") >= 0);
			}
			for (int i = 0; i < 20; i++) {
				assertThat(post(h2c, "/api/v1/publish/h2-" + i, "{\"n\":" + i + "}")).isEqualTo(202);
			}
			for (int i = 0; i < 20; i++) {
				String expected = "data: {\"n\":" + i + "}";
				StringBuffer received = streams.get(i);
				await().atMost(TIMEOUT).until(() -> received.indexOf(expected) >= 0);
			}
			// Each stream's heartbeats (one shared buffer, a view of it per write)
			// arrive whole, again and again, as DATA frames of their own stream.
			for (StringBuffer received : streams) {
				await().atMost(TIMEOUT).until(() -> received.toString().split(": heartbeat\n\n", -1).length > 3);
				assertThat(received.toString().replace(": heartbeat\n\n", "")).doesNotContain("heartbeat");
			}
			assertThat(version.get()).isEqualTo(HttpVersion.valueOf("HTTP/2.0"));
			assertThat(proxy.accepted()).as("TCP connections").isEqualTo(1);
			open.forEach(Disposable::dispose);
		}
	}

	@Test
	void withTlsAlpnChoosesH2AndHttp11ClientsAreStillServed() throws Exception {
		SelfSignedCertificate certificate = SelfSignedCertificate.create(this.work, "gateway");
		try (RunningGateway gateway = start("--server.ssl.key-store=" + certificate.keyStore(),
				"--server.ssl.key-store-password=" + certificate.password(), "--server.ssl.key-store-type=PKCS12")) {
			String base = "https://127.0.0.1:" + port(gateway);
			HttpClient h2 = HttpClient.create()
				.secure((tls) -> tls.sslContext(Http2SslContextSpec.forClient()
					.configure((builder) -> builder.trustManager(InsecureTrustManagerFactory.INSTANCE))))
				.protocol(HttpProtocol.H2)
				.baseUrl(base)
				.responseTimeout(TIMEOUT);
			HttpClient http11 = HttpClient.create()
				.secure((tls) -> tls.sslContext(Http11SslContextSpec.forClient()
					.configure((builder) -> builder.trustManager(InsecureTrustManagerFactory.INSTANCE))))
				.baseUrl(base)
				.responseTimeout(TIMEOUT);
			assertThat(post(h2, "/api/v1/topics", "{\"id\":\"tls\"}")).isEqualTo(201);
			StringBuffer received = new StringBuffer();
			AtomicReference<HttpVersion> version = new AtomicReference<>();
			Disposable stream = h2.headers((headers) -> headers.set(HttpHeaderNames.ACCEPT, "text/event-stream"))
				.get()
				.uri("/api/v1/stream/tls")
				.response((response, body) -> {
					version.set(response.version());
					return body.asString();
				})
				.subscribe(received::append);
			await().atMost(TIMEOUT).until(() -> received.indexOf("retry:") >= 0);
			assertThat(post(http11, "/api/v1/publish/tls", "{\"over\":\"http/1.1\"}")).isEqualTo(202);
			await().atMost(TIMEOUT).until(() -> received.indexOf("data: {\"over\":\"http/1.1\"}") >= 0);
			assertThat(version.get()).isEqualTo(HttpVersion.valueOf("HTTP/2.0"));
			HttpVersion oldClient = http11.get()
				.uri("/actuator/health/readiness")
				.response()
				.map((response) -> response.version())
				.block(TIMEOUT);
			assertThat(oldClient).isEqualTo(HttpVersion.HTTP_1_1);
			stream.dispose();
		}
	}

	private static int post(HttpClient client, String path, String json) {
		return client.headers((headers) -> headers.set(HttpHeaderNames.CONTENT_TYPE, "application/json"))
			.post()
			.uri(path)
			.send(ByteBufFlux.fromString(Mono.just(json)))
			.responseSingle((response, body) -> body.then(Mono.just(response.status().code())))
			.block(TIMEOUT);
	}

}
