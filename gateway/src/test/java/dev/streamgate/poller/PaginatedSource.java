package dev.streamgate.poller;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.handler.codec.http.HttpResponseStatus;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.http.server.HttpServer;

/**
 * A paginated JSON API behind an OAuth 2.0 authorization server, on one loopback port:
 * {@code POST /token} grants client credentials tokens that expire after
 * {@link #TOKEN_LIFETIME} (RFC 6749 section 4.4, client_secret_basic, RFC 6749 error
 * answers); {@code GET /items?page=n} serves page n of {@link #PAGES}, each with three
 * items and its next page in a {@code Link} header; {@code GET /cursor?cursor=c} serves
 * the same items with the next cursor in the body. Both answer 401 to a missing, unknown
 * or expired token.
 */
final class PaginatedSource implements AutoCloseable {

	static final int PAGES = 5;

	static final int PER_PAGE = 3;

	static final Duration TOKEN_LIFETIME = Duration.ofSeconds(2);

	static final String CLIENT_ID = "poller";

	static final String CLIENT_SECRET = "s3cr3t-value";

	private final DisposableServer server;

	/** Token value to its expiry, epoch milliseconds. */
	private final Map<String, Long> tokens = new ConcurrentHashMap<>();

	private final AtomicInteger issued = new AtomicInteger();

	private final AtomicLong version = new AtomicLong(1);

	final List<Map<String, String>> tokenRequests = new CopyOnWriteArrayList<>();

	final List<String> pageRequests = new CopyOnWriteArrayList<>();

	final AtomicInteger unauthorized = new AtomicInteger();

	PaginatedSource() {
		this.server = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.route((routes) -> routes.post("/token", this::token)
				.get("/items", (request, response) -> page(request, response, true))
				.get("/cursor", (request, response) -> page(request, response, false))
				.get("/loop",
						(request, response) -> authorized(request)
								? json(response.header("Link", "</loop>; rel=\"next\""), "{\"items\":[1]}")
								: json(response.status(401), "{}")))
			.bindNow();
	}

	String url(String path) {
		return "http://127.0.0.1:" + this.server.port() + path;
	}

	/** Changes one item, so that the next poll publishes a new version. */
	void change() {
		this.version.incrementAndGet();
	}

	/** Forgets every token, as a server whose signing key rotated. */
	void revokeTokens() {
		this.tokens.clear();
	}

	int tokensIssued() {
		return this.issued.get();
	}

	/** The items of all pages as the source holds them now. */
	List<String> items() {
		List<String> items = new ArrayList<>();
		for (int page = 1; page <= PAGES; page++) {
			items.addAll(items(page));
		}
		return items;
	}

	private List<String> items(int page) {
		List<String> items = new ArrayList<>();
		for (int i = 0; i < PER_PAGE; i++) {
			int n = (page - 1) * PER_PAGE + i;
			// Item 10 (on page 4) carries the version: a change deep in the pages.
			items.add("{\"n\":" + n + ",\"v\":" + ((n == 10) ? this.version.get() : 0) + "}");
		}
		return items;
	}

	private Mono<Void> token(HttpServerRequest request, HttpServerResponse response) {
		String basic = request.requestHeaders().get("Authorization");
		return request.receive().aggregate().asString(StandardCharsets.UTF_8).defaultIfEmpty("").flatMap((body) -> {
			Map<String, String> form = form(body);
			this.tokenRequests.add(form);
			String expected = "Basic " + Base64.getEncoder()
				.encodeToString((CLIENT_ID + ":" + CLIENT_SECRET).getBytes(StandardCharsets.UTF_8));
			if (!expected.equals(basic)) {
				return json(response.status(401).header("WWW-Authenticate", "Basic"),
						"{\"error\":\"invalid_client\",\"error_description\":\"Client authentication failed\"}");
			}
			if (!"client_credentials".equals(form.get("grant_type"))) {
				return json(response.status(400), "{\"error\":\"unsupported_grant_type\"}");
			}
			String token = "t-" + this.issued.incrementAndGet();
			this.tokens.put(token, System.currentTimeMillis() + TOKEN_LIFETIME.toMillis());
			return json(response.header("Cache-Control", "no-store"), "{\"access_token\":\"" + token
					+ "\",\"token_type\":\"Bearer\",\"expires_in\":" + TOKEN_LIFETIME.toSeconds() + "}");
		}).then();
	}

	private Mono<Void> page(HttpServerRequest request, HttpServerResponse response, boolean linkHeader) {
		this.pageRequests.add(request.uri());
		if (!authorized(request)) {
			this.unauthorized.incrementAndGet();
			return json(response.status(HttpResponseStatus.UNAUTHORIZED).header("WWW-Authenticate", "Bearer"),
					"{\"error\":\"invalid_token\"}");
		}
		Map<String, String> query = form(request.uri().contains("?") ? request.uri().split("\\?", 2)[1] : "");
		int page = Integer.parseInt(query.getOrDefault(linkHeader ? "page" : "cursor", "1"));
		String items = String.join(",", items(page));
		if (linkHeader) {
			if (page < PAGES) {
				// Relative, as GitHub's and most APIs' are not: resolved against the
				// page.
				response.header("Link",
						"<items?page=" + (page + 1) + ">; rel=\"next\", <items?page=" + PAGES + ">; rel=\"last\"");
			}
			return json(response, "{\"page\":" + page + ",\"items\":[" + items + "]}");
		}
		String next = (page < PAGES) ? "\"" + (page + 1) + "\"" : "null";
		return json(response, "{\"data\":[" + items + "],\"meta\":{\"next_cursor\":" + next + "}}");
	}

	private boolean authorized(HttpServerRequest request) {
		String header = request.requestHeaders().get("Authorization");
		if (header == null || !header.startsWith("Bearer ")) {
			return false;
		}
		Long expires = this.tokens.get(header.substring(7));
		return expires != null && expires > System.currentTimeMillis();
	}

	private static Mono<Void> json(HttpServerResponse response, String body) {
		return response.header("Content-Type", "application/json").sendString(Mono.just(body)).then();
	}

	private static Map<String, String> form(String encoded) {
		Map<String, String> form = new ConcurrentHashMap<>();
		for (String pair : encoded.split("&")) {
			if (!pair.isEmpty()) {
				String[] nameValue = pair.split("=", 2);
				form.put(URLDecoder.decode(nameValue[0], StandardCharsets.UTF_8),
						URLDecoder.decode((nameValue.length > 1) ? nameValue[1] : "", StandardCharsets.UTF_8));
			}
		}
		return form;
	}

	@Override
	public void close() {
		this.server.disposeNow();
	}

}
