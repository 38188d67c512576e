package dev.streamgate.poller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

import dev.streamgate.support.AuthorizationServer;

import static dev.streamgate.support.AuthorizationServer.json;

/**
 * A paginated JSON API behind an OAuth 2.0 authorization server, on one loopback port:
 * {@code POST /token} grants client credentials tokens that expire after
 * {@link #TOKEN_LIFETIME}; {@code GET /items?page=n} serves page n of {@link #PAGES},
 * each with three items and its next page in a {@code Link} header; {@code GET /cursor}
 * serves the same items with the next cursor in the body. Both answer 401 to a missing,
 * unknown or expired token.
 */
final class PaginatedSource implements AutoCloseable {

	static final int PAGES = 5;

	static final int PER_PAGE = 3;

	static final Duration TOKEN_LIFETIME = Duration.ofSeconds(2);

	static final String CLIENT_ID = "poller";

	static final String CLIENT_SECRET = "s3cr3t-value";

	final AuthorizationServer authorization = new AuthorizationServer(CLIENT_ID, CLIENT_SECRET, TOKEN_LIFETIME);

	private final DisposableServer server;

	private final AtomicLong version = new AtomicLong(1);

	final List<String> pageRequests = new CopyOnWriteArrayList<>();

	final AtomicInteger unauthorized = new AtomicInteger();

	PaginatedSource() {
		this.server = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.route((routes) -> routes.post("/token", this.authorization::token)
				.get("/items", (request, response) -> page(request, response, true))
				.get("/cursor", (request, response) -> page(request, response, false))
				.get("/loop",
						(request, response) -> this.authorization.authorized(request)
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

	private Mono<Void> page(HttpServerRequest request, HttpServerResponse response, boolean linkHeader) {
		this.pageRequests.add(request.uri());
		if (!this.authorization.authorized(request)) {
			this.unauthorized.incrementAndGet();
			return json(response.status(401).header("WWW-Authenticate", "Bearer"), "{\"error\":\"invalid_token\"}");
		}
		Map<String, String> query = AuthorizationServer
			.form(request.uri().contains("?") ? request.uri().split("\\?", 2)[1] : "");
		int page = Integer.parseInt(query.getOrDefault(linkHeader ? "page" : "cursor", "1"));
		String items = String.join(",", items(page));
		if (linkHeader) {
			if (page < PAGES) {
				// Relative, as many APIs' are: resolved against the page.
				response.header("Link",
						"<items?page=" + (page + 1) + ">; rel=\"next\", <items?page=" + PAGES + ">; rel=\"last\"");
			}
			return json(response, "{\"page\":" + page + ",\"items\":[" + items + "]}");
		}
		String next = (page < PAGES) ? "\"" + (page + 1) + "\"" : "null";
		return json(response, "{\"data\":[" + items + "],\"meta\":{\"next_cursor\":" + next + "}}");
	}

	@Override
	public void close() {
		this.server.disposeNow();
	}

}
