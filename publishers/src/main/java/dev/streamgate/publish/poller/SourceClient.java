package dev.streamgate.publish.poller;

import java.io.IOException;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import javax.net.ssl.SSLException;

import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.handler.timeout.ReadTimeoutException;
import jakarta.json.JsonValue;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientResponse;
import reactor.netty.resources.ConnectionProvider;
import reactor.util.retry.Retry;

import dev.streamgate.core.egress.EgressGuard;
import dev.streamgate.core.egress.EgressRefusedException;
import dev.streamgate.core.oauth.AccessTokenException;
import dev.streamgate.core.oauth.AccessTokens;
import dev.streamgate.core.oauth.ClientCredentials;
import dev.streamgate.core.topic.Publisher;

/**
 * Fetches a poller's source: one GET with the topic's headers, its bearer token and
 * conditional-request validators, its timeout, a bounded body, redirects followed a few
 * times, and retries with exponential backoff on the configured statuses and on transport
 * failures; for a paginated source, one such GET per page. Every failure is a
 * {@link SourceFailure} that says what went wrong.
 */
final class SourceClient implements Source {

	private final HttpClient http;

	private final PollerProperties properties;

	private final String userAgent;

	private final AccessTokens tokens;

	SourceClient(EgressGuard guard, PollerProperties properties, String userAgent, AccessTokens tokens) {
		this.properties = properties;
		this.userAgent = userAgent;
		this.tokens = tokens;
		ConnectionProvider pool = ConnectionProvider.builder("streamgate-poller")
			.maxConnections(properties.maxConnections())
			.maxIdleTime(java.time.Duration.ofSeconds(30))
			.build();
		// Every connection, redirects included, is checked by the egress guard after DNS.
		// Redirects are followed here rather than by Reactor Netty: each answer's body is
		// drained so that its connection goes back to the pool whatever the next hop does
		// (a hop the guard refuses leaked one socket per poll), and configured headers
		// stay with the source's origin.
		this.http = guard.guard(HttpClient.create(pool)
			.compress(true)
			.option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) properties.connectTimeout().toMillis()));
	}

	/**
	 * One poll, retries included: one page, or every page of a paginated source.
	 * @param publisher the topic's publisher
	 * @param validators the validators of the last answer, for a conditional request (not
	 * sent to a paginated source, whose first page may not change when others do)
	 * @return the answer
	 */
	@Override
	public Mono<Fetch> fetch(Publisher.HttpPoller publisher, Validators validators) {
		if (publisher.pagination() == null) {
			return page(publisher, validators, publisher.url());
		}
		Pages pages = new Pages(publisher.pagination(), publisher.url(), this.properties.maxBody().toBytes());
		return pages(publisher, publisher.url(), pages);
	}

	private Mono<Fetch> pages(Publisher.HttpPoller publisher, URI url, Pages pages) {
		// Parsing pages is CPU work: keep it off the event loops.
		return page(publisher, Validators.NONE, url).publishOn(Schedulers.parallel()).flatMap((fetch) -> {
			URI next = pages.add(url, fetch);
			return (next != null) ? pages(publisher, next, pages) : Mono.just(Fetch.merged(pages));
		});
	}

	/** One page, retries included. */
	private Mono<Fetch> page(Publisher.HttpPoller publisher, Validators validators, URI url) {
		AtomicInteger attempts = new AtomicInteger();
		Publisher.Retry retry = publisher.retry();
		Mono<Fetch> attempt = Mono.defer(() -> {
			attempts.incrementAndGet();
			return authorized(publisher, (token) -> request(publisher, validators, token, publisher.url(), url, 0));
		})
			.timeout(publisher.timeout(),
					Mono.error(() -> new SourceFailure(SourceFailure.Kind.TIMEOUT,
							"No complete answer within " + publisher.timeout())))
			.onErrorMap((ex) -> !(ex instanceof SourceFailure), SourceClient::classify);
		return attempt
			.retryWhen(Retry.backoff(retry.maxAttempts() - 1, retry.initialBackoff())
				.maxBackoff(retry.maxBackoff())
				.jitter(0.2)
				.filter((ex) -> retryable(ex, retry))
				.onRetryExhaustedThrow((spec, signal) -> signal.failure()))
			.onErrorMap(SourceFailure.class, (failure) -> failure.afterAttempts(attempts.get()));
	}

	/**
	 * A request with the topic's bearer token, when it has client credentials: a 401
	 * drops the token and the request is sent once more with a new one.
	 */
	private Mono<Fetch> authorized(Publisher.HttpPoller publisher, Function<String, Mono<Fetch>> request) {
		ClientCredentials oauth2 = publisher.oauth2();
		if (oauth2 == null) {
			return request.apply(null);
		}
		return token(oauth2).flatMap((token) -> request.apply(token)
			.onErrorResume((ex) -> ex instanceof SourceFailure failure && failure.kind() == SourceFailure.Kind.STATUS
					&& Integer.valueOf(401).equals(failure.sourceStatus()), (unauthorized) -> {
						this.tokens.reject(oauth2, token);
						return token(oauth2).flatMap(request);
					}));
	}

	private Mono<String> token(ClientCredentials oauth2) {
		return this.tokens.token(oauth2)
			.onErrorMap(AccessTokenException.class,
					(ex) -> new SourceFailure(SourceFailure.Kind.AUTH, ex.getMessage()));
	}

	/** One request, and the next one while the answer is a redirect. */
	private Mono<Fetch> request(Publisher.HttpPoller publisher, Validators validators, String token, URI source,
			URI url, int redirects) {
		long maxBody = this.properties.maxBody().toBytes();
		boolean sameOrigin = sameOrigin(source, url);
		return this.http.headers((headers) -> {
			headers.set(HttpHeaderNames.USER_AGENT, this.userAgent);
			headers.set(HttpHeaderNames.ACCEPT, "application/json");
			if (sameOrigin) {
				// As browsers drop Authorization on a cross-origin redirect: every header
				// the topic configures may carry a credential.
				publisher.headers().forEach(headers::set);
				if (token != null) {
					headers.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + token);
				}
				validators.addTo(headers);
			}
		}).responseTimeout(publisher.timeout()).get().uri(url.toString()).response((response, body) -> {
			int status = response.status().code();
			if (status == 304 && validators.isPresent() && sameOrigin) {
				return body.then(Mono.just(Step.done(Fetch.NOT_MODIFIED)));
			}
			if (isRedirect(status)) {
				return body.then(Mono.fromCallable(() -> Step.redirect(next(url, response, redirects))));
			}
			if (status < 200 || status > 299) {
				return body.then(Mono.error(new SourceFailure(SourceFailure.Kind.STATUS,
						"The source answered " + status + " " + response.status().reasonPhrase(), status)));
			}
			long declared = response.responseHeaders().getInt(HttpHeaderNames.CONTENT_LENGTH, -1);
			if (declared > maxBody) {
				return Mono.error(tooLarge(declared + " bytes", maxBody));
			}
			BodyBuffer collected = new BodyBuffer(declared, maxBody);
			// Each network buffer is read as it comes; Reactor Netty releases it after.
			return body.<Void>handle((chunk, sink) -> {
				if (!collected.add(chunk)) {
					sink.error(tooLarge("more than " + maxBody + " bytes", maxBody));
				}
			})
				.then(Mono
					.fromSupplier(() -> Step.done(Fetch.page(collected.bytes(), validators(response.responseHeaders()),
							String.join(", ", response.responseHeaders().getAll("Link"))))));
		})
			.single()
			.flatMap((step) -> (step.redirect() != null)
					? request(publisher, validators, token, source, step.redirect(), redirects + 1)
					: Mono.just(step.fetch()));
	}

	/** Where a redirect leads, within the limit. */
	private URI next(URI url, HttpClientResponse response, int redirects) {
		int status = response.status().code();
		if (redirects >= this.properties.maxRedirects()) {
			throw new SourceFailure(SourceFailure.Kind.REDIRECTS, "Still redirected (" + status + ") after " + redirects
					+ " redirects; at most " + this.properties.maxRedirects() + " are followed", status);
		}
		String location = response.responseHeaders().get(HttpHeaderNames.LOCATION);
		URI next;
		try {
			next = (location != null) ? References.resolve(url, location.trim()) : null;
		}
		catch (IllegalArgumentException ex) {
			next = null;
		}
		if (next == null || !("http".equalsIgnoreCase(next.getScheme()) || "https".equalsIgnoreCase(next.getScheme()))
				|| next.getHost() == null) {
			throw new SourceFailure(SourceFailure.Kind.REDIRECTS,
					"The source redirected (" + status + ") to no http(s) URL: " + location, status);
		}
		return next;
	}

	private static boolean sameOrigin(URI a, URI b) {
		return a.getScheme().equalsIgnoreCase(b.getScheme()) && a.getHost().equalsIgnoreCase(b.getHost())
				&& port(a) == port(b);
	}

	private static int port(URI uri) {
		return (uri.getPort() != -1) ? uri.getPort() : ("https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80);
	}

	/** An answer: the fetch, or where to go next. */
	private record Step(Fetch fetch, URI redirect) {

		static Step done(Fetch fetch) {
			return new Step(fetch, null);
		}

		static Step redirect(URI next) {
			return new Step(null, next);
		}

	}

	private static SourceFailure tooLarge(String size, long maxBody) {
		return new SourceFailure(SourceFailure.Kind.TOO_LARGE,
				"The answer has " + size + "; streamgate.poller.max-body allows " + maxBody);
	}

	private static Validators validators(HttpHeaders headers) {
		return new Validators(headers.get(HttpHeaderNames.ETAG), headers.get(HttpHeaderNames.LAST_MODIFIED));
	}

	private static boolean isRedirect(int status) {
		return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
	}

	private static boolean retryable(Throwable ex, Publisher.Retry retry) {
		if (!(ex instanceof SourceFailure failure)) {
			return false;
		}
		return switch (failure.kind()) {
			case STATUS -> retry.onStatus().contains(failure.sourceStatus());
			case TIMEOUT, UNREACHABLE -> true;
			default -> false;
		};
	}

	/** What a transport exception means for the topic's subscribers. */
	static SourceFailure classify(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof EgressRefusedException) {
				return new SourceFailure(SourceFailure.Kind.REFUSED, cause.getMessage());
			}
			if (cause instanceof SSLException || cause instanceof SslHandshakeTimeoutException) {
				return new SourceFailure(SourceFailure.Kind.TLS, "TLS failed: " + cause.getMessage());
			}
			if (cause instanceof ReadTimeoutException || cause instanceof ConnectTimeoutException
					|| cause instanceof TimeoutException) {
				return new SourceFailure(SourceFailure.Kind.TIMEOUT, "Timed out: " + describe(cause));
			}
			if (cause instanceof UnknownHostException) {
				return new SourceFailure(SourceFailure.Kind.UNREACHABLE, "Unknown host: " + cause.getMessage());
			}
		}
		Throwable root = ex;
		while (root.getCause() != null && !(root instanceof IOException)) {
			root = root.getCause();
		}
		return new SourceFailure(SourceFailure.Kind.UNREACHABLE, describe(root), ex);
	}

	private static String describe(Throwable ex) {
		return (ex.getMessage() != null) ? ex.getMessage() : ex.getClass().getSimpleName();
	}

	/**
	 * A source's answer: one page as fetched, or the document merged from the pages of a
	 * paginated source.
	 *
	 * @param body the body of one page, or {@code null} when merged or not modified
	 * @param validators its validators
	 * @param link its {@code Link} header values, joined with commas
	 * @param document the merged document of a paginated source, or {@code null}
	 * @param size the bytes fetched, every page included
	 * @param truncated whether pages were left out at {@code maxPages}
	 */
	record Fetch(byte[] body, Validators validators, String link, JsonValue document, long size, boolean truncated) {

		static final Fetch NOT_MODIFIED = new Fetch(null, Validators.NONE);

		Fetch(byte[] body, Validators validators) {
			this(body, validators, "", null, (body != null) ? body.length : 0, false);
		}

		static Fetch page(byte[] body, Validators validators, String link) {
			return new Fetch(body, validators, link, null, body.length, false);
		}

		static Fetch merged(Pages pages) {
			return new Fetch(null, Validators.NONE, "", pages.document(), pages.bytes(), pages.truncated());
		}

		boolean notModified() {
			return this.body == null && this.document == null;
		}

	}

	/**
	 * The validators of an answer, sent back to ask for a 304 when nothing changed.
	 *
	 * @param etag the {@code ETag}
	 * @param lastModified the {@code Last-Modified}
	 */
	record Validators(String etag, String lastModified) {

		static final Validators NONE = new Validators(null, null);

		boolean isPresent() {
			return this.etag != null || this.lastModified != null;
		}

		void addTo(HttpHeaders headers) {
			if (this.etag != null) {
				headers.set(HttpHeaderNames.IF_NONE_MATCH, this.etag);
			}
			if (this.lastModified != null) {
				headers.set(HttpHeaderNames.IF_MODIFIED_SINCE, this.lastModified);
			}
		}

	}

}
