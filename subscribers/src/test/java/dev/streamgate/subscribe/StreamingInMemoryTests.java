package dev.streamgate.subscribe;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.socket.WebSocketMessage;
import org.springframework.web.reactive.socket.client.ReactorNettyWebSocketClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.web.SubscribeAccess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The subscriber channels over the memory storage, in this module: a node with no broker
 * starts in a second or two, so the behaviour of SSE streams and WebSocket subscriptions
 * (resume, the multi-topic stream, a topic that does not exist) is checked here without
 * Kafka; the gateway's tests check the same over Kafka, with security and behind NGINX.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = { "streamgate.storage=memory",
		"streamgate.sse.heartbeat=1h", "spring.webflux.problemdetails.enabled=true" })
class StreamingInMemoryTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private static final ParameterizedTypeReference<ServerSentEvent<String>> SSE = new ParameterizedTypeReference<>() {
	};

	@LocalServerPort
	private int port;

	@Autowired
	private TopicStore topics;

	@Autowired
	private EventPublisher publisher;

	private WebClient client;

	@BeforeEach
	void client() {
		this.client = WebClient.create("http://127.0.0.1:" + this.port);
	}

	private Topic topic(String id) {
		return this.topics
			.save(new Topic(id, null, null, null, null, null, null, null, null, null, null, null).withDefaults())
			.block(WAIT)
			.topic();
	}

	private void publish(Topic topic, String... payloads) {
		this.publisher
			.publish(topic,
					List.of(payloads).stream().map((payload) -> payload.getBytes(StandardCharsets.UTF_8)).toList())
			.block(WAIT);
	}

	private Flux<ServerSentEvent<String>> stream(String uri, String lastEventId) {
		return this.client.get().uri(uri).accept(MediaType.TEXT_EVENT_STREAM).headers((headers) -> {
			if (lastEventId != null) {
				headers.set("Last-Event-ID", lastEventId);
			}
		}).retrieve().bodyToFlux(SSE).filter((event) -> event.data() != null);
	}

	@Test
	void aStreamResumesAfterTheLastEventItsClientSaw() {
		Topic topic = topic("orders");
		publish(topic, "{\"n\":1}", "{\"n\":2}");
		List<ServerSentEvent<String>> first = stream("/api/v1/stream/orders?lastEventId=earliest", null).take(2)
			.collectList()
			.block(WAIT);
		assertThat(first).extracting(ServerSentEvent::data).containsExactly("{\"n\":1}", "{\"n\":2}");
		assertThat(first).extracting(ServerSentEvent::event).containsOnly("event");
		publish(topic, "{\"n\":3}");
		List<ServerSentEvent<String>> resumed = stream("/api/v1/stream/orders", first.get(0).id()).take(2)
			.collectList()
			.block(WAIT);
		assertThat(resumed).extracting(ServerSentEvent::data).containsExactly("{\"n\":2}", "{\"n\":3}");
		assertThat(resumed.get(1).id()).isNotEqualTo(first.get(1).id());
	}

	@Test
	void aStreamOfSeveralTopicsWrapsEachEventWithItsTopic() {
		Topic prices = topic("prices");
		Topic trades = topic("trades");
		publish(prices, "1");
		publish(trades, "2");
		Flux<ServerSentEvent<String>> stream = stream("/api/v1/stream?topic=prices&topic=trades&lastEventId=earliest",
				null)
			.take(2);
		assertThat(stream.collectList().block(WAIT)).extracting(ServerSentEvent::data)
			.containsExactlyInAnyOrder("{\"topic\":\"prices\",\"data\":1}", "{\"topic\":\"trades\",\"data\":2}");
	}

	@Test
	void aTopicThatDoesNotExistIsRefusedBeforeAStreamOpens() {
		this.client.get()
			.uri("/api/v1/stream/missing")
			.accept(MediaType.TEXT_EVENT_STREAM)
			.exchangeToMono((response) -> {
				// The gateway's problem handler makes the answer
				// application/problem+json.
				assertThat(response.statusCode().value()).isEqualTo(404);
				return response.releaseBody();
			})
			.block(WAIT);
	}

	@Test
	void aWebSocketCarriesTheEventsOfEachTopicItSubscribedTo() {
		Topic board = topic("board");
		publish(board, "{\"cell\":\"a1\"}");
		Sinks.Many<String> received = Sinks.many().replay().all();
		new ReactorNettyWebSocketClient()
			.execute(URI.create("ws://127.0.0.1:" + this.port + "/api/v1/ws"), (socket) -> socket
				.send(Flux.just("{\"subscribe\":{\"topic\":\"board\",\"lastEventId\":\"earliest\"}}",
						"{\"subscribe\":{\"topic\":\"missing\"}}")
					.map(socket::textMessage))
				.thenMany(socket.receive().map(WebSocketMessage::getPayloadAsText).doOnNext(received::tryEmitNext))
				.then())
			.subscribe();
		List<String> messages = received.asFlux().take(2).collectList().block(WAIT);
		assertThat(messages).anySatisfy((message) -> assertThat(message).contains("\"topic\":\"board\"")
			.contains("\"type\":\"event\"")
			.contains("{\"cell\":\"a1\"}"));
		assertThat(messages).anySatisfy((message) -> assertThat(message).contains("\"topic\":\"missing\"")
			.contains("\"type\":\"problem\"")
			.contains("\"status\":404"));
	}

	/**
	 * A node of the subscriber roles over the memory storage; every topic is open.
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	@ComponentScan({ "dev.streamgate.core", "dev.streamgate.storage.memory", "dev.streamgate.subscribe" })
	static class Node {

		@Bean
		SubscribeAccess openAccess() {
			return new SubscribeAccess() {

				@Override
				public Verdict check(Principal principal, Topic topic) {
					return Verdict.ALLOWED;
				}

				@Override
				public Instant expiresAt(Principal principal) {
					return null;
				}

				@Override
				public Duration expiringNotice() {
					return Duration.ofMinutes(1);
				}

				@Override
				public Mono<Principal> authenticate(String token) {
					return Mono.empty();
				}

			};
		}

	}

}
