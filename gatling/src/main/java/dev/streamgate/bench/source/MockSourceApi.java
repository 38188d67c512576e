package dev.streamgate.bench.source;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import org.reactivestreams.Publisher;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A REST API for pollers to watch, for tests and benchmarks.
 * <p>
 * {@code GET /documents/{name}} answers a JSON document of about {@code size} bytes in
 * which a share {@code change} of the values changes on each request (or, with
 * {@code change-every}, on a timer), with {@code generatedAt} (epoch ms, the moment the
 * version was first served) and {@code version} stamped in. It sends an {@code ETag} and
 * answers {@code If-None-Match} with 304. Each name is its own document; {@code size} and
 * {@code change} query parameters set a new name's shape.
 * <p>
 * For failure tests, {@code PUT /documents/{name}/fault} with a text body switches the
 * document into a fault: {@code none}, {@code status:<code>}, {@code garbage} (not JSON),
 * {@code huge:<bytes>}, {@code slow:<millis>}, {@code redirect-loop},
 * {@code redirect-to:<url>}. Also {@code GET /documents/{name}/versions/{v}} (a recent
 * version as served) and {@code GET /documents/{name}/requests} (requests seen, newest
 * last, with their {@code User-Agent}).
 * <p>
 * Settings, as {@code --key=value} arguments, system properties {@code mock.key} or
 * environment variables {@code MOCK_KEY}: {@code host} (127.0.0.1), {@code port} (8090),
 * {@code size} (1024), {@code change} (0.2), {@code change-every} (unset: every request;
 * else an ISO-8601 duration).
 */
public final class MockSourceApi implements AutoCloseable {

	private final Map<String, MockDocument> documents = new ConcurrentHashMap<>();

	private final Settings settings;

	private final DisposableServer server;

	private MockSourceApi(Settings settings) {
		this.settings = settings;
		this.server = HttpServer.create()
			.host(settings.host())
			.port(settings.port())
			.route((routes) -> routes.get("/health", (request, response) -> response.sendString(Mono.just("ok")))
				.get("/documents/{name}", this::document)
				.put("/documents/{name}/fault", this::fault)
				.get("/documents/{name}/versions/{version}", this::version)
				.get("/documents/{name}/requests", this::requests))
			.bindNow();
	}

	/**
	 * Starts a mock source API.
	 * @param settings where it listens and what it serves
	 * @return the running API
	 */
	public static MockSourceApi start(Settings settings) {
		return new MockSourceApi(settings);
	}

	/**
	 * The port it listens on.
	 * @return the port
	 */
	public int port() {
		return this.server.port();
	}

	/**
	 * The URL of a document.
	 * @param name the document name
	 * @return its URL
	 */
	public String url(String name) {
		return "http://" + this.settings.host() + ":" + port() + "/documents/" + name;
	}

	/**
	 * A document, created with the default shape when new.
	 * @param name the document name
	 * @return the document
	 */
	public MockDocument document(String name) {
		return this.documents.computeIfAbsent(name,
				(key) -> new MockDocument(this.settings.size(), this.settings.change(), this.settings.changeEvery()));
	}

	private Publisher<Void> document(HttpServerRequest request, HttpServerResponse response) {
		MockDocument document = documentFor(request);
		document.recordRequest(request.requestHeaders().get(HttpHeaderNames.USER_AGENT, ""));
		String fault = document.fault();
		if (!"none".equals(fault)) {
			return faulty(fault, request, response);
		}
		MockDocument.Version version = document.serve();
		String etag = "\"v" + version.number() + "\"";
		response.header(HttpHeaderNames.ETAG, etag).header(HttpHeaderNames.CACHE_CONTROL, "no-cache");
		if (etag.equals(request.requestHeaders().get(HttpHeaderNames.IF_NONE_MATCH))) {
			return response.status(HttpResponseStatus.NOT_MODIFIED).send();
		}
		return json(response, version.json());
	}

	private MockDocument documentFor(HttpServerRequest request) {
		String name = request.param("name");
		Map<String, String> query = query(request.uri());
		return this.documents.computeIfAbsent(name,
				(key) -> new MockDocument(intOr(query.get("size"), this.settings.size()),
						doubleOr(query.get("change"), this.settings.change()), this.settings.changeEvery()));
	}

	private Publisher<Void> faulty(String fault, HttpServerRequest request, HttpServerResponse response) {
		String kind = fault.contains(":") ? fault.substring(0, fault.indexOf(':')) : fault;
		String argument = fault.contains(":") ? fault.substring(fault.indexOf(':') + 1) : "";
		return switch (kind) {
			case "status" -> response.status(Integer.parseInt(argument))
				.header(HttpHeaderNames.CONTENT_TYPE, "application/json")
				.sendString(Mono.just("{\"error\":\"injected\"}"));
			case "garbage" -> response.header(HttpHeaderNames.CONTENT_TYPE, "application/json")
				.sendString(Mono.just("<html>this is not JSON</html>"));
			case "huge" -> response.header(HttpHeaderNames.CONTENT_TYPE, "application/json")
				.send(hugeArray(Long.parseLong(argument)));
			case "slow" -> response.header(HttpHeaderNames.CONTENT_TYPE, "application/json")
				.sendString(Mono.delay(Duration.ofMillis(Long.parseLong(argument))).map((tick) -> "{\"slow\":true}"));
			case "redirect-loop" -> response.sendRedirect(request.uri());
			case "redirect-to" -> response.sendRedirect(argument);
			default -> response.status(HttpResponseStatus.INTERNAL_SERVER_ERROR)
				.sendString(Mono.just("unknown fault " + fault));
		};
	}

	/** A valid JSON array of at least the given size, streamed in 64 KiB chunks. */
	private static Flux<ByteBuf> hugeArray(long bytes) {
		byte[] chunk = ("1," + "0,".repeat(32767)).getBytes(StandardCharsets.US_ASCII);
		long chunks = Math.max(1, bytes / chunk.length + 1);
		return Flux.concat(Mono.just(Unpooled.wrappedBuffer("[".getBytes(StandardCharsets.US_ASCII))),
				Flux.range(0, (int) Math.min(chunks, Integer.MAX_VALUE)).map((i) -> Unpooled.wrappedBuffer(chunk)),
				Mono.just(Unpooled.wrappedBuffer("0]".getBytes(StandardCharsets.US_ASCII))));
	}

	private Publisher<Void> fault(HttpServerRequest request, HttpServerResponse response) {
		MockDocument document = documentFor(request);
		return response.sendString(request.receive().aggregate().asString().defaultIfEmpty("none").map((body) -> {
			document.fault(body.strip());
			return "fault " + body.strip() + "\n";
		}));
	}

	private Publisher<Void> version(HttpServerRequest request, HttpServerResponse response) {
		MockDocument document = this.documents.get(request.param("name"));
		String json = (document != null) ? document.version(Long.parseLong(request.param("version"))) : null;
		if (json == null) {
			return response.status(HttpResponseStatus.NOT_FOUND).send();
		}
		return json(response, json);
	}

	private Publisher<Void> requests(HttpServerRequest request, HttpServerResponse response) {
		MockDocument document = this.documents.get(request.param("name"));
		return json(response, (document != null) ? document.requestsJson() : "[]");
	}

	private static Publisher<Void> json(HttpServerResponse response, String json) {
		return response.header(HttpHeaderNames.CONTENT_TYPE, "application/json").sendString(Mono.just(json));
	}

	private static Map<String, String> query(String uri) {
		Map<String, String> query = new ConcurrentHashMap<>();
		int start = uri.indexOf('?');
		if (start >= 0) {
			for (String pair : uri.substring(start + 1).split("&")) {
				int equals = pair.indexOf('=');
				if (equals > 0) {
					query.put(pair.substring(0, equals), pair.substring(equals + 1));
				}
			}
		}
		return query;
	}

	private static int intOr(String value, int fallback) {
		return (value != null) ? Integer.parseInt(value) : fallback;
	}

	private static double doubleOr(String value, double fallback) {
		return (value != null) ? Double.parseDouble(value) : fallback;
	}

	@Override
	public void close() {
		this.server.disposeNow();
		this.documents.values().forEach(MockDocument::close);
	}

	/**
	 * Runs the mock source API until the process is stopped.
	 * @param args {@code --key=value} settings
	 */
	public static void main(String[] args) {
		Settings settings = Settings.from(args, System::getProperty, System::getenv);
		MockSourceApi api = start(settings);
		System.out.println("Mock source API on http://" + settings.host() + ":" + api.port()
				+ "/documents/{name} (size " + settings.size() + " B, change " + settings.change() + ", "
				+ ((settings.changeEvery() != null) ? "every " + settings.changeEvery() : "on every request") + ")");
		Runtime.getRuntime().addShutdownHook(new Thread(api::close));
		api.server.onDispose().block();
	}

	/**
	 * What the mock serves and where.
	 *
	 * @param host the address to listen on
	 * @param port the port, 0 for any free one
	 * @param size the approximate size of new documents in bytes
	 * @param change the share of values that changes per version
	 * @param changeEvery a new version on this timer, or {@code null} for one per request
	 */
	public record Settings(String host, int port, int size, double change, Duration changeEvery) {

		/**
		 * Loopback, any free port, the default shape.
		 * @return settings for tests
		 */
		public static Settings forTests() {
			return new Settings("127.0.0.1", 0, 1024, 0.2, null);
		}

		static Settings from(String[] args, Function<String, String> properties, Function<String, String> env) {
			Map<String, String> given = new ConcurrentHashMap<>();
			for (String arg : args) {
				if (arg.startsWith("--") && arg.contains("=")) {
					given.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
				}
				else {
					throw new IllegalArgumentException("Unknown argument " + arg + "; use --key=value");
				}
			}
			Function<String, String> setting = (key) -> {
				String value = given.get(key);
				if (value == null) {
					value = properties.apply("mock." + key);
				}
				if (value == null) {
					value = env.apply("MOCK_" + key.toUpperCase().replace('-', '_'));
				}
				return value;
			};
			String changeEvery = setting.apply("change-every");
			return new Settings(valueOr(setting.apply("host"), "127.0.0.1"),
					Integer.parseInt(valueOr(setting.apply("port"), "8090")),
					Integer.parseInt(valueOr(setting.apply("size"), "1024")),
					Double.parseDouble(valueOr(setting.apply("change"), "0.2")),
					(changeEvery != null) ? Duration.parse(changeEvery) : null);
		}

		private static String valueOr(String value, String fallback) {
			return (value != null) ? value : fallback;
		}

	}

}
