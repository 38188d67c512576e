package dev.streamgate.stream;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringReader;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.json.Json;
import jakarta.json.JsonReader;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

import dev.streamgate.bench.sink.WebhookSink;
import dev.streamgate.core.event.MemoryBudget;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.JsonRequests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a node holds is bounded in bytes. The recent-events ring of a topic was bounded by
 * count only, so 150 events of 1 MB with one subscriber held +304 MB of heap after a full
 * GC; rings are now bounded per topic and by the node's budget
 * ({@code streamgate.memory.recent-events}). Publications waiting for Kafka were queued
 * without bound (6.6 GB of RSS under a load Kafka could not take); they are now bounded
 * by {@code streamgate.ingest.max-in-flight}, the excess refused at once (or, with
 * {@code streamgate.ingest.max-wait}, after waiting for room:
 * IngestWaitIntegrationTests). And a webhook behind the recent events took its gap from
 * Kafka 200 events at a time, whatever their size: it now takes about a mebibyte.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "streamgate.memory.recent-events=32MB", "streamgate.ingest.max-in-flight=3MB",
				// The webhook sink listens on 127.0.0.1; its slow answer outlasts the
				// default timeout.
				"streamgate.egress.allowed-cidrs=127.0.0.1/32", "streamgate.webhook.timeout=60s" })
@AutoConfigureWebTestClient
class MemoryBoundIntegrationTests implements JsonRequests {

	private static final int EVENTS = 150;

	private static final long BUDGET = 32L * 1024 * 1024;

	private static final int FLOOD = 40;

	private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

	@DynamicPropertySource
	static void kafka(DynamicPropertyRegistry registry) {
		GatewayKafka.register(registry);
	}

	@Autowired
	private WebTestClient client;

	@Autowired
	private MemoryBudget budget;

	@LocalServerPort
	private int port;

	@Test
	void largeEventsKeepTheHeapWithinTheRecentEventsBudget() throws Exception {
		this.client.post()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"id\":\"heavy\"}")
			.exchange()
			.expectStatus()
			.isCreated();
		long before = heapAfterGc();
		String payload = "{\"pad\":\"" + "x".repeat(1_000_000) + "\"}";
		AtomicInteger received = new AtomicInteger();
		try (Socket subscriber = new Socket()) {
			subscriber.connect(new InetSocketAddress("127.0.0.1", this.port));
			OutputStream out = subscriber.getOutputStream();
			out.write("GET /api/v1/stream/heavy HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			Thread reader = new Thread(() -> countEvents(subscriber, received));
			reader.setDaemon(true);
			reader.start();
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> this.client.get()
					.uri("/api/v1/topics/heavy/status")
					.exchange()
					.expectBody()
					.jsonPath("$.subscribers.sse")
					.isEqualTo(1));
			WebTestClient publisher = client();
			for (int i = 0; i < EVENTS; i++) {
				publisher.post()
					.uri("/api/v1/publish/heavy")
					.contentType(MediaType.APPLICATION_JSON)
					.bodyValue(payload)
					.exchange()
					.expectStatus()
					.isAccepted();
			}
			await().atMost(Duration.ofSeconds(60)).until(() -> received.get() == EVENTS);
			assertThat(this.budget.used()).isPositive().isLessThanOrEqualTo(BUDGET);
			long grown = heapAfterGc() - before;
			// The ring holds at most the budget; what else the test JVM holds (the
			// broker,
			// the clients) stays far below the +300 MB of a ring bounded by count.
			assertThat(grown).as("heap growth after GC, bytes").isLessThan(BUDGET + 64L * 1024 * 1024);
		}
	}

	@Test
	void publicationsBeyondTheInFlightBoundAreRefusedAtOnceAndNoneIsLost() throws Exception {
		this.client.post()
			.uri("/api/v1/topics")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"id\":\"flood\"}")
			.exchange()
			.expectStatus()
			.isCreated();
		String payload = "{\"pad\":\"" + "y".repeat(400_000) + "\"}";
		WebClient publisher = WebClient.create("http://127.0.0.1:" + this.port);
		List<ResponseEntity<String>> answers = Flux.range(0, FLOOD)
			.flatMap((i) -> publisher.post()
				.uri("/api/v1/publish/flood")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue(payload)
				.exchangeToMono((response) -> response.toEntity(String.class)), FLOOD)
			.collectList()
			.block(Duration.ofSeconds(60));
		List<ResponseEntity<String>> refused = answers.stream()
			.filter((answer) -> answer.getStatusCode().value() == 503)
			.toList();
		long accepted = answers.stream().filter((answer) -> answer.getStatusCode().value() == 202).count();
		assertThat(accepted + refused.size()).as("every answer is 202 or 503").isEqualTo(FLOOD);
		assertThat(accepted).isPositive();
		assertThat(refused).isNotEmpty().allSatisfy((answer) -> {
			assertThat(answer.getHeaders().getFirst("Retry-After")).isEqualTo("1");
			assertThat(answer.getHeaders().getContentType()).hasToString("application/problem+json");
			assertThat(answer.getBody()).contains("https://streamgate.dev/problems/overloaded");
		});
		// Everything held was released: a publication is admitted again.
		this.client.post()
			.uri("/api/v1/publish/flood")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(payload)
			.exchange()
			.expectStatus()
			.isAccepted();
		// Exactly the accepted publications are in the topic: none lost, none refused yet
		// published.
		AtomicInteger received = new AtomicInteger();
		try (Socket subscriber = new Socket()) {
			subscriber.connect(new InetSocketAddress("127.0.0.1", this.port));
			OutputStream out = subscriber.getOutputStream();
			out.write(("GET /api/v1/stream/flood?lastEventId=earliest HTTP/1.1\r\nHost: localhost\r\n"
					+ "Accept: text/event-stream\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			Thread reader = new Thread(() -> countEvents(subscriber, received));
			reader.setDaemon(true);
			reader.start();
			await().atMost(Duration.ofSeconds(30)).until(() -> received.get() >= accepted + 1);
			Thread.sleep(1000);
			assertThat(received.get()).isEqualTo(accepted + 1);
		}
	}

	@Test
	void aWebhookBehindTheRecentEventsHoldsAboutAMebibyteOfItsGapAtATime() throws Exception {
		post("/api/v1/topics", "{\"id\":\"behind\"}", 201);
		// Bodies not kept: the sink's copies would count in this JVM's heap.
		try (WebhookSink sink = WebhookSink.startForBenchmarks("127.0.0.1", 0)) {
			WebhookSink.Endpoint endpoint = sink.endpoint("behind", SECRET);
			String webhook = "/api/v1/topics/behind/webhooks/" + id(post("/api/v1/topics/behind/webhooks",
					"{\"url\":\"" + sink.url("behind") + "\",\"secret\":\"" + SECRET + "\"}", 201));
			List<String> ids = new ArrayList<>();
			ids.add(id(post("/api/v1/publish/behind", "{\"n\":0}", 202)));
			await().atMost(Duration.ofSeconds(30)).until(() -> endpoint.received().size() == 1);
			patch(webhook, "{\"status\":\"disabled\"}", 200);
			long before = heapAfterGc();
			// Far more than the recent events hold: the webhook's gap is read from Kafka.
			String pad = "z".repeat(1_000_000);
			for (int i = 1; i < EVENTS; i++) {
				ids.add(id(post("/api/v1/publish/behind", "{\"n\":" + i + ",\"pad\":\"" + pad + "\"}", 202)));
			}
			endpoint.behave("slow:20000");
			patch(webhook, "{\"status\":\"active\"}", 200);
			// The endpoint holds the gap's first delivery; meanwhile what the webhook
			// took from Kafka is in the heap.
			await().atMost(Duration.ofSeconds(30)).until(() -> endpoint.received().size() == 2);
			long grown = heapAfterGc() - before;
			// 200 events at a time held the whole gap, 149 MB beside the 32-MB ring.
			assertThat(grown).as("heap growth after GC, bytes").isLessThan(BUDGET + 32L * 1024 * 1024);
			endpoint.behave("ok");
			await().atMost(Duration.ofSeconds(90)).until(() -> endpoint.received().size() >= EVENTS);
			assertThat(endpoint.received()).extracting(WebhookSink.Received::webhookId)
				.containsExactlyElementsOf(ids.stream().map((id) -> "msg_behind_" + id).toList());
		}
	}

	@Override
	public WebTestClient client() {
		// Publications of a megabyte on a busy test machine.
		return this.client.mutate().responseTimeout(Duration.ofSeconds(30)).build();
	}

	@Override
	public String baseUrl() {
		return "http://127.0.0.1:" + this.port;
	}

	private static String id(String json) {
		try (JsonReader reader = Json.createReader(new StringReader(json))) {
			return reader.readObject().getString("id");
		}
	}

	private static void countEvents(Socket socket, AtomicInteger received) {
		byte[] marker = "\nid:".getBytes(StandardCharsets.US_ASCII);
		byte[] buffer = new byte[64 * 1024];
		int matched = 0;
		try (InputStream in = socket.getInputStream()) {
			for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
				for (int i = 0; i < n; i++) {
					matched = (buffer[i] == marker[matched]) ? matched + 1 : ((buffer[i] == marker[0]) ? 1 : 0);
					if (matched == marker.length) {
						received.incrementAndGet();
						matched = 0;
					}
				}
			}
		}
		catch (java.io.IOException ex) {
			// the test closed the socket
		}
	}

	private static long heapAfterGc() {
		for (int i = 0; i < 3; i++) {
			System.gc();
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

}
