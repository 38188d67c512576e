package dev.streamgate.bench.floor;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The HTTP part of fanout-200 with nothing else: the routes gatling/ssebench drives
 * (create a topic, publish, stream a topic as SSE) on bare Reactor Netty, the server
 * under the gateway's WebFlux, with no Spring, no security, no observation and no Kafka.
 * A publication is written to the topic's streams and answered 202 at once. What this
 * server costs at fanout-200's load is what the gateway's HTTP work could cost on the
 * same machine with no framework at all (gatling/bin/http-floor); it is a measuring
 * instrument, not a gateway: no validation, no history, no resume.
 * <p>
 * Reactor Netty is the gateway's version: both take it from Spring Boot's dependency
 * management. Run from {@code gatling/target/mock-source-exec.jar} with
 * {@code -Dloader.main=dev.streamgate.bench.floor.HttpFloor}, the port as argument.
 */
public final class HttpFloor {

	private static final Map<String, Set<Sinks.Many<String>>> STREAMS = new ConcurrentHashMap<>();

	private static final AtomicLong IDS = new AtomicLong();

	private HttpFloor() {
	}

	public static void main(String[] args) {
		int port = Integer.parseInt(args[0]);
		DisposableServer server = HttpServer.create()
			.host("127.0.0.1")
			.port(port)
			.route((routes) -> routes
				.get("/actuator/health/readiness",
						(request, response) -> response.header("Content-Type", "application/json")
							.sendString(Mono.just("{\"status\":\"UP\"}")))
				.post("/api/v1/topics",
						(request, response) -> request.receive()
							.then(response.status(201)
								.header("Content-Type", "application/json")
								.sendString(Mono.just("{}"))
								.then()))
				.post("/api/v1/publish/{topic}", (request, response) -> {
					String topic = request.param("topic");
					return request.receive().aggregate().asString(StandardCharsets.UTF_8).flatMap((body) -> {
						long id = IDS.incrementAndGet();
						String frame = "id: " + id + "\ndata: " + body + "\n\n";
						for (Sinks.Many<String> stream : STREAMS.getOrDefault(topic, Set.of())) {
							stream.tryEmitNext(frame);
						}
						return response.status(202)
							.header("Content-Type", "application/json")
							.sendString(Mono.just("{\"id\":\"" + id + "\"}"))
							.then();
					});
				})
				.get("/api/v1/stream/{topic}", (request, response) -> {
					String topic = request.param("topic");
					Sinks.Many<String> stream = Sinks.many().unicast().onBackpressureBuffer();
					Set<Sinks.Many<String>> streams = STREAMS.computeIfAbsent(topic,
							(name) -> ConcurrentHashMap.newKeySet());
					streams.add(stream);
					return response.header("Content-Type", "text/event-stream")
						.sendString(Flux.concat(Mono.just("retry: 3000\n\n"), stream.asFlux())
							.doFinally((signal) -> streams.remove(stream)));
				}))
			.bindNow();
		System.out.println("listening on " + server.port());
		server.onDispose().block();
	}

}
