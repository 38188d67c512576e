package dev.streamgate.stream;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.BodyInserters;
import reactor.core.Disposable;

import dev.streamgate.core.event.EventStorageProperties;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.RawHttp;
import dev.streamgate.support.Sse;
import dev.streamgate.support.Tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The committed NGINX configuration (deploy/nginx/nginx.conf) in front of the gateway
 * passes each event through on its own, compressed streams too: every event reaches the
 * client before the next one is published. With proxy buffering on, the first events
 * would wait for a buffer to fill.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient
class NginxIntegrationTests {

	@DynamicPropertySource
	static void kafka(DynamicPropertyRegistry registry) {
		GatewayKafka.register(registry);
		registry.add("streamgate.mercure.publisher-key", () -> MERCURE_KEY);
		registry.add("streamgate.mercure.anonymous", () -> "true");
	}

	private static final String MERCURE_KEY = "a-mercure-hub-key-of-at-least-32-bytes";

	@Autowired
	private WebTestClient client;

	@LocalServerPort
	private int port;

	@TempDir
	Path prefix;

	private static final String MERCURE_PUBLISHER = Tokens.mercure(MERCURE_KEY,
			java.util.Map.of("publish", List.of("*")), null);

	@ParameterizedTest
	@ValueSource(strings = { "/api/v1/stream/%s", "/api/v1/stream?topic=%s", "h2c /api/v1/stream/%s",
			"gzip /api/v1/stream/%s", "gzip h2c /api/v1/stream?topic=%s" })
	void eventsPassThroughNginxOneByOne(String how) throws Exception {
		boolean gzip = how.startsWith("gzip ");
		String rest = how.substring(gzip ? 5 : 0);
		boolean h2c = rest.startsWith("h2c ");
		String path = rest.substring(h2c ? 4 : 0);
		boolean several = path.contains("?");
		String topicId = (several ? "proxied-several" : "proxied") + (h2c ? "-h2c" : "") + (gzip ? "-gzip" : "");
		int nginxPort = freePort();
		int h2cPort = freePort();
		Process nginx = startNginx(Files.readString(Path.of("..", "deploy", "nginx", "nginx.conf"))
			.replace("server 127.0.0.1:8080;", "server 127.0.0.1:" + this.port + ";"), nginxPort, h2cPort);
		try {
			this.client.post()
				.uri("/api/v1/topics")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"id\":\"" + topicId + "\"}")
				.exchange()
				.expectStatus()
				.isCreated();
			String proxy = "http://127.0.0.1:" + (h2c ? h2cPort : nginxPort);
			// Compressed streams pass NGINX untouched and still event by event.
			Sse throughNginx = gzip ? Sse.compressed(proxy, h2c) : h2c ? Sse.h2c(proxy) : new Sse(proxy);
			await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
				new Socket("127.0.0.1", nginxPort).close();
				return true;
			});
			List<ServerSentEvent<String>> received = new CopyOnWriteArrayList<>();
			CompletableFuture<Void> open = new CompletableFuture<>();
			Disposable stream = throughNginx.all(path.formatted(topicId), null).subscribe((event) -> {
				if (event.retry() != null) {
					open.complete(null);
				}
				if (event.data() != null) {
					received.add(event);
				}
			});
			open.get(10, TimeUnit.SECONDS);
			if (gzip && !h2c) {
				assertThat(responseHead(nginxPort, path.formatted(topicId))).contains("content-encoding: gzip");
			}
			for (int i = 0; i < 5; i++) {
				int expected = i + 1;
				this.client.post()
					.uri("/api/v1/publish/" + topicId)
					.contentType(MediaType.APPLICATION_JSON)
					.bodyValue("{\"n\":" + i + "}")
					.exchange()
					.expectStatus()
					.isAccepted();
				await().atMost(Duration.ofSeconds(5)).until(() -> received.size() == expected);
			}
			// A large publication through NGINX too: bodies past NGINX's default buffer
			// must not
			// be spooled to a temporary file its workers may not write (that was a 500).
			String large = "{\"n\":5,\"pad\":\"" + "x".repeat(200 * 1024) + "\"}";
			WebTestClient.bindToServer()
				.baseUrl("http://127.0.0.1:" + nginxPort)
				.build()
				.post()
				.uri("/api/v1/publish/" + topicId)
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue(large)
				.exchange()
				.expectStatus()
				.isAccepted();
			await().atMost(Duration.ofSeconds(5)).until(() -> received.size() == 6);
			stream.dispose();
			List<String> expected = List.of("{\"n\":0}", "{\"n\":1}", "{\"n\":2}", "{\"n\":3}", "{\"n\":4}", large)
				.stream()
				.map((data) -> several ? "{\"topic\":\"" + topicId + "\",\"data\":" + data + "}" : data)
				.toList();
			assertThat(received).extracting(ServerSentEvent::data).containsExactlyElementsOf(expected);
		}
		finally {
			nginx.destroy();
			nginx.waitFor(10, TimeUnit.SECONDS);
		}
	}

	@Test
	void mercureUpdatesPassThroughNginxOneByOne() throws Exception {
		int nginxPort = freePort();
		Process nginx = startNginx(Files.readString(Path.of("..", "deploy", "nginx", "nginx.conf"))
			.replace("server 127.0.0.1:8080;", "server 127.0.0.1:" + this.port + ";"), nginxPort, freePort());
		try {
			await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
				new Socket("127.0.0.1", nginxPort).close();
				return true;
			});
			WebTestClient throughNginx = WebTestClient.bindToServer().baseUrl("http://127.0.0.1:" + nginxPort).build();
			// The hub's topic is made once the node is ready.
			await().atMost(Duration.ofSeconds(30))
				.until(() -> throughNginx.post()
					.uri("/.well-known/mercure")
					.header("Authorization", "Bearer " + MERCURE_PUBLISHER)
					.body(BodyInserters.fromFormData("topic", "warm-up"))
					.exchange()
					.returnResult(String.class)
					.getStatus()
					.value() == 200);
			List<ServerSentEvent<String>> received = new CopyOnWriteArrayList<>();
			CompletableFuture<Void> open = new CompletableFuture<>();
			Disposable stream = new Sse("http://127.0.0.1:" + nginxPort)
				.all("/.well-known/mercure?topic=https%3A%2F%2Fexample.com%2Fproxied%2F%7Bid%7D", null)
				.subscribe((event) -> {
					open.complete(null);
					if (event.data() != null) {
						received.add(event);
					}
				});
			open.get(10, TimeUnit.SECONDS);
			List<String> ids = new ArrayList<>();
			for (int i = 0; i < 5; i++) {
				int expected = i + 1;
				ids.add(throughNginx.post()
					.uri("/.well-known/mercure")
					.header("Authorization", "Bearer " + MERCURE_PUBLISHER)
					.body(BodyInserters.fromFormData("topic", "https://example.com/proxied/" + i).with("data", "u" + i))
					.exchange()
					.expectStatus()
					.isOk()
					.expectBody(String.class)
					.returnResult()
					.getResponseBody());
				await().atMost(Duration.ofSeconds(5)).until(() -> received.size() == expected);
			}
			stream.dispose();
			assertThat(received).extracting(ServerSentEvent::id).containsExactlyElementsOf(ids);
		}
		finally {
			nginx.destroy();
			nginx.waitFor(10, TimeUnit.SECONDS);
		}
	}

	@Test
	void nginxSendsEveryTopicOfAPartitionToTheSameStreamingNode() throws Exception {
		// Four streaming nodes behind the committed configuration: each answers its own
		// index. NGINX must send a topic's stream to node sharedPartition mod 4, so that
		// each node holds the topics of three of the twelve shared partitions.
		List<HttpServer> nodes = new ArrayList<>();
		StringBuilder servers = new StringBuilder();
		for (int i = 0; i < 4; i++) {
			HttpServer node = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
			byte[] index = Integer.toString(i).getBytes(StandardCharsets.UTF_8);
			node.createContext("/", (exchange) -> {
				exchange.sendResponseHeaders(200, index.length);
				exchange.getResponseBody().write(index);
				exchange.close();
			});
			node.start();
			nodes.add(node);
			servers.append("server 127.0.0.1:").append(node.getAddress().getPort()).append(";\n        ");
		}
		int nginxPort = freePort();
		String committed = Files.readString(Path.of("..", "deploy", "nginx", "nginx.conf"));
		int streams = committed.indexOf("upstream streamgate_streams");
		Process nginx = startNginx(
				committed.substring(0, streams)
						+ committed.substring(streams).replaceFirst("server 127.0.0.1:8080;", servers.toString()),
				nginxPort, freePort());
		try {
			WebTestClient throughNginx = WebTestClient.bindToServer().baseUrl("http://127.0.0.1:" + nginxPort).build();
			await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
				new Socket("127.0.0.1", nginxPort).close();
				return true;
			});
			EventStorageProperties storage = new EventStorageProperties(12, Duration.ofDays(7));
			Set<Integer> reached = new HashSet<>();
			for (int t = 0; t < 96; t++) {
				String topic = "routed-" + t;
				String node = throughNginx.get()
					.uri("/api/v1/stream/" + topic)
					.exchange()
					.expectStatus()
					.isOk()
					.expectBody(String.class)
					.returnResult()
					.getResponseBody();
				assertThat(Integer.parseInt(node)).as(topic).isEqualTo(storage.sharedPartitionOf(topic) % 4);
				reached.add(Integer.parseInt(node));
			}
			assertThat(reached).containsExactlyInAnyOrder(0, 1, 2, 3);
		}
		finally {
			nginx.destroy();
			nginx.waitFor(10, TimeUnit.SECONDS);
			nodes.forEach((node) -> node.stop(0));
		}
	}

	/**
	 * NGINX with a configuration, listening on the given ports instead of the committed
	 * ones.
	 */
	private Process startNginx(String configuration, int port, int h2cPort) throws IOException {
		Path config = this.prefix.resolve("nginx.conf");
		Files.writeString(config, configuration.replace("listen 127.0.0.1:8081;", "listen 127.0.0.1:" + port + ";")
			.replace("listen 127.0.0.1:8082 http2;", "listen 127.0.0.1:" + h2cPort + " http2;"));
		return new ProcessBuilder(nginxBinary(), "-p", this.prefix.toString(), "-c", config.toString(), "-g",
				"daemon off;")
			.redirectErrorStream(true)
			.redirectOutput(this.prefix.resolve("nginx.out").toFile())
			.start();
	}

	private static String nginxBinary() {
		for (String candidate : List.of("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx")) {
			if (Files.isExecutable(Path.of(candidate))) {
				return candidate;
			}
		}
		throw new IllegalStateException("nginx is not installed: .ci/run installs it (apt-get install nginx-light)");
	}

	/**
	 * The head of a stream's response through NGINX to a client that accepts gzip, in
	 * lower case.
	 */
	private static String responseHead(int port, String path) throws IOException {
		try (RawHttp connection = new RawHttp(port, Duration.ofSeconds(10))) {
			connection.send("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: gzip\r\n\r\n");
			return connection.readHeadLowerCase();
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

}
