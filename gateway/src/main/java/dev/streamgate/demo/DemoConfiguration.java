package dev.streamgate.demo;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * What a newcomer needs to see every part of the loop on one machine, served by the
 * gateway itself when {@code streamgate.demo.enabled=true} (the {@code demo} profile): a
 * source for a poller ({@code GET /demo/prices}, a document whose prices move a little at
 * each request) and a webhook receiver ({@code POST /demo/hooks/{name}} answers 204 and
 * keeps the last deliveries, {@code GET /demo/hooks/{name}} lists them). The profile also
 * lets pollers and webhooks reach loopback addresses. For development and demos only: the
 * receiver keeps what anyone posts to it, and the egress guard no longer protects this
 * machine's own services.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("streamgate.demo.enabled")
public class DemoConfiguration {

	/** Deliveries kept per receiver. */
	static final int KEPT = 100;

	private static final Log logger = LogFactory.getLog(DemoConfiguration.class);

	@Bean
	RouterFunction<ServerResponse> demoRoutes() {
		logger.info("Demo: a source at /demo/prices and webhook receivers at /demo/hooks/{name}; pollers and "
				+ "webhooks may reach this machine (streamgate.egress.allowed-cidrs). For development only.");
		Prices prices = new Prices();
		Receivers receivers = new Receivers();
		return RouterFunctions.route()
			.GET("/demo/prices", (request) -> ServerResponse.ok().bodyValue(prices.next()))
			.POST("/demo/hooks/{name}", receivers::receive)
			.GET("/demo/hooks/{name}", receivers::list)
			.build();
	}

	/**
	 * A few currency pairs, each moving by up to a hundredth of a percent per request.
	 */
	static final class Prices {

		private final Map<String, Double> rates = new LinkedHashMap<>(
				Map.of("EURUSD", 1.0850, "GBPUSD", 1.2650, "USDJPY", 151.20));

		synchronized Map<String, Object> next() {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			String moved = new ArrayList<>(this.rates.keySet()).get(random.nextInt(this.rates.size()));
			this.rates.computeIfPresent(moved,
					(pair, rate) -> Math.round(rate * (1 + (random.nextDouble() - 0.5) / 5000) * 10000) / 10000.0);
			return Map.of("data", new LinkedHashMap<>(this.rates));
		}

	}

	/** Webhook receivers by name, each keeping its last deliveries. */
	static final class Receivers {

		private final Map<String, Deque<Map<String, Object>>> deliveries = new LinkedHashMap<>();

		Mono<ServerResponse> receive(ServerRequest request) {
			String name = request.pathVariable("name");
			return request.bodyToMono(String.class).defaultIfEmpty("").flatMap((body) -> {
				Map<String, Object> delivery = new LinkedHashMap<>();
				delivery.put("receivedAt", Instant.now().toString());
				delivery.put("webhookId", request.headers().firstHeader("webhook-id"));
				delivery.put("webhookTimestamp", request.headers().firstHeader("webhook-timestamp"));
				delivery.put("webhookSignature", request.headers().firstHeader("webhook-signature"));
				delivery.put("body", body);
				synchronized (this) {
					Deque<Map<String, Object>> kept = this.deliveries.computeIfAbsent(name,
							(key) -> new ArrayDeque<>());
					kept.addFirst(delivery);
					while (kept.size() > KEPT) {
						kept.removeLast();
					}
				}
				return ServerResponse.noContent().build();
			});
		}

		Mono<ServerResponse> list(ServerRequest request) {
			List<Map<String, Object>> kept;
			synchronized (this) {
				kept = new ArrayList<>(this.deliveries.getOrDefault(request.pathVariable("name"), new ArrayDeque<>()));
			}
			return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(Map.of("items", kept));
		}

	}

}
