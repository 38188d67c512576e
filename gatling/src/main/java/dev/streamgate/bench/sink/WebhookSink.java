package dev.streamgate.bench.sink;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.EmptyWebhookSecretException;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import org.HdrHistogram.Recorder;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A webhook receiver for tests and benchmarks: {@code POST /hooks/{name}} checks the
 * Standard Webhooks signature with the official library, records the delivery, and
 * answers as the endpoint's behaviour says: {@code ok} (204), {@code status:<code>},
 * {@code retry-after:<code>:<seconds>}, {@code slow:<millis>}.
 * <p>
 * When an accepted delivery's {@code data} holds {@code sentAt} (epoch milliseconds,
 * stamped by the publisher), the time from then to receipt goes into a latency histogram.
 */
public final class WebhookSink implements AutoCloseable {

	private static final Pattern SENT_AT = Pattern.compile("\"sentAt\"\\s*:\\s*(\\d+)");

	private static final Pattern TYPE = Pattern.compile("^\\{\"type\":\"([a-z]+)\"");

	private final Map<String, Endpoint> endpoints = new ConcurrentHashMap<>();

	private final Recorder latencies = new Recorder(3);

	private final DisposableServer server;

	private final boolean keepBodies;

	private WebhookSink(String host, int port, boolean keepBodies) {
		this.keepBodies = keepBodies;
		this.server = HttpServer.create()
			.host(host)
			.port(port)
			.route((routes) -> routes.post("/hooks/{name}", this::receive))
			.bindNow();
	}

	/**
	 * Starts a sink.
	 * @param host the address to listen on
	 * @param port the port, 0 for any free one
	 * @return the running sink
	 */
	public static WebhookSink start(String host, int port) {
		return new WebhookSink(host, port, true);
	}

	/**
	 * Starts a sink that checks and times every delivery but keeps no bodies, for long
	 * benchmark runs.
	 * @param host the address to listen on
	 * @param port the port, 0 for any free one
	 * @return the running sink
	 */
	public static WebhookSink startForBenchmarks(String host, int port) {
		return new WebhookSink(host, port, false);
	}

	public int port() {
		return this.server.port();
	}

	/**
	 * The URL of one endpoint.
	 * @param name the endpoint name
	 * @return its URL
	 */
	public String url(String name) {
		return "http://" + this.server.host() + ":" + this.server.port() + "/hooks/" + name;
	}

	/**
	 * Declares an endpoint and the secret its deliveries are signed with.
	 * @param name the endpoint name
	 * @param secret the {@code whsec_} secret
	 * @return the endpoint
	 */
	public Endpoint endpoint(String name, String secret) {
		try {
			Endpoint endpoint = new Endpoint(new Webhook(secret));
			this.endpoints.put(name, endpoint);
			return endpoint;
		}
		catch (EmptyWebhookSecretException ex) {
			throw new IllegalArgumentException("An endpoint needs a secret", ex);
		}
	}

	public Endpoint endpoint(String name) {
		return this.endpoints.get(name);
	}

	/**
	 * The latencies recorded since the last call, in microseconds.
	 * @return the interval histogram
	 */
	public org.HdrHistogram.Histogram latencies() {
		return this.latencies.getIntervalHistogram();
	}

	private Publisher<Void> receive(HttpServerRequest request, HttpServerResponse response) {
		Endpoint endpoint = this.endpoints.get(request.param("name"));
		if (endpoint == null) {
			return response.status(HttpResponseStatus.NOT_FOUND).send();
		}
		return request.receive().aggregate().asString(StandardCharsets.UTF_8).defaultIfEmpty("").flatMap((body) -> {
			long receivedAt = System.currentTimeMillis();
			Map<String, String> headers = new TreeMap<>();
			request.requestHeaders()
				.forEach((header) -> headers.put(header.getKey().toLowerCase(Locale.ROOT), header.getValue()));
			String behaviour = endpoint.behaviour;
			Matcher stamp = SENT_AT.matcher(body);
			long sentAt = stamp.find() ? Long.parseLong(stamp.group(1)) : -1;
			Received received = new Received(headers, this.keepBodies ? body : "", receivedAt,
					endpoint.verify(body, headers), Endpoint.status(behaviour), sentAt);
			endpoint.received.add(received);
			if (received.signatureValid() && received.accepted() && sentAt >= 0) {
				this.latencies.recordValue(Math.max(0, receivedAt - sentAt) * 1000);
			}
			return Endpoint.answer(behaviour, response);
		});
	}

	@Override
	public void close() {
		this.server.disposeNow(Duration.ofSeconds(5));
	}

	/**
	 * One endpoint: its secret, its behaviour and what it received.
	 */
	public static final class Endpoint {

		private final Webhook verifier;

		private final List<Received> received = new CopyOnWriteArrayList<>();

		/** What {@code error-body:<code>} answers: a JSON error and 2,000 more bytes. */
		public static final String ERROR_BODY = "{\"error\":\"not today\"}" + "x".repeat(2000);

		private volatile String behaviour = "ok";

		Endpoint(Webhook verifier) {
			this.verifier = verifier;
		}

		/**
		 * Sets how the endpoint answers from now on.
		 * @param newBehaviour {@code ok}, {@code status:<code>},
		 * {@code error-body:<code>} (with {@link #ERROR_BODY}),
		 * {@code retry-after:<code>:<seconds>} or {@code slow:<millis>}
		 * @return this endpoint
		 */
		public Endpoint behave(String newBehaviour) {
			this.behaviour = newBehaviour;
			return this;
		}

		/**
		 * Everything received, in order of arrival.
		 * @return the deliveries
		 */
		public List<Received> received() {
			return new ArrayList<>(this.received);
		}

		private boolean verify(String body, Map<String, String> headers) {
			Map<String, List<String>> multi = new TreeMap<>();
			headers.forEach((name, value) -> multi.put(name, List.of(value)));
			try {
				this.verifier.verify(body, multi);
				return true;
			}
			catch (WebhookVerificationException ex) {
				return false;
			}
		}

		private static int status(String behaviour) {
			String[] parts = behaviour.split(":");
			return switch (parts[0]) {
				case "status", "retry-after", "error-body" -> Integer.parseInt(parts[1]);
				default -> 204;
			};
		}

		private static Mono<Void> answer(String behaviour, HttpServerResponse response) {
			String[] parts = behaviour.split(":");
			return switch (parts[0]) {
				case "status" -> response.status(Integer.parseInt(parts[1])).send().then();
				case "error-body" -> response.status(Integer.parseInt(parts[1]))
					.header(HttpHeaderNames.CONTENT_TYPE, "application/json")
					.sendString(Mono.just(ERROR_BODY))
					.then();
				case "retry-after" -> response.status(Integer.parseInt(parts[1]))
					.header(HttpHeaderNames.RETRY_AFTER, parts[2])
					.send()
					.then();
				case "slow" -> Mono.delay(Duration.ofMillis(Long.parseLong(parts[1])))
					.then(response.status(HttpResponseStatus.NO_CONTENT).send().then());
				default -> response.status(HttpResponseStatus.NO_CONTENT).send().then();
			};
		}

	}

	/**
	 * One delivery as received.
	 *
	 * @param headers the request headers, names in lower case
	 * @param body the body
	 * @param receivedAt when it arrived (epoch milliseconds)
	 * @param signatureValid whether the official library verified its signature
	 * @param status the status the sink answered
	 * @param sentAt the publisher's {@code sentAt} stamp found in the body (epoch
	 * milliseconds), or -1
	 */
	public record Received(Map<String, String> headers, String body, long receivedAt, boolean signatureValid,
			int status, long sentAt) {

		public boolean accepted() {
			return this.status >= 200 && this.status < 300;
		}

		public String webhookId() {
			return this.headers.get("webhook-id");
		}

		/**
		 * The delivery type of the envelope.
		 * @return the type, or {@code null}
		 */
		public String type() {
			Matcher type = TYPE.matcher(this.body);
			return type.find() ? type.group(1) : null;
		}

	}

}
