package dev.streamgate.support;

import java.time.Duration;
import java.util.List;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.util.DefaultUriBuilderFactory;
import reactor.core.publisher.Flux;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.client.HttpClient;

/**
 * An SSE client for tests: Spring's WebClient and its SSE decoder, over real HTTP.
 */
public final class Sse {

	private static final ParameterizedTypeReference<ServerSentEvent<String>> EVENTS = new ParameterizedTypeReference<>() {
	};

	private final WebClient client;

	public Sse(String baseUrl) {
		this(WebClient.builder().uriBuilderFactory(asWritten(baseUrl)).build());
	}

	private Sse(WebClient client) {
		this.client = client;
	}

	/**
	 * A client that speaks HTTP/2 in plain text (prior knowledge) only.
	 * @param baseUrl the server
	 * @return the client
	 */
	public static Sse h2c(String baseUrl) {
		return over(baseUrl, HttpClient.create().protocol(HttpProtocol.H2C));
	}

	/**
	 * A client that asks for compressed streams ({@code Accept-Encoding: gzip}) and reads
	 * them with Netty's decoder.
	 * @param baseUrl the server
	 * @param h2c whether it speaks HTTP/2 in plain text rather than HTTP/1.1
	 * @return the client
	 */
	public static Sse compressed(String baseUrl, boolean h2c) {
		HttpClient client = HttpClient.create().compress(true);
		return over(baseUrl, h2c ? client.protocol(HttpProtocol.H2C) : client);
	}

	private static Sse over(String baseUrl, HttpClient client) {
		return new Sse(WebClient.builder()
			.uriBuilderFactory(asWritten(baseUrl))
			.clientConnector(new ReactorClientHttpConnector(client))
			.build());
	}

	/**
	 * Paths are sent as written: a test encodes its query parameters itself (a filter
	 * holds {@code &&}, which a template would leave as it is).
	 */
	private static DefaultUriBuilderFactory asWritten(String baseUrl) {
		DefaultUriBuilderFactory factory = new DefaultUriBuilderFactory(baseUrl);
		factory.setEncodingMode(DefaultUriBuilderFactory.EncodingMode.NONE);
		return factory;
	}

	/**
	 * Opens a stream; only data events (those with data) are kept.
	 * @param path the stream path and query
	 * @param lastEventId the Last-Event-ID header, or {@code null}
	 * @return the events
	 */
	public Flux<ServerSentEvent<String>> stream(String path, String lastEventId) {
		return all(path, lastEventId).filter((event) -> event.data() != null);
	}

	/**
	 * Opens a stream, keeping every event: the retry line and comments too.
	 * @param path the stream path and query
	 * @param lastEventId the Last-Event-ID header, or {@code null}
	 * @return the events
	 */
	public Flux<ServerSentEvent<String>> all(String path, String lastEventId) {
		return this.client.get().uri(path).accept(MediaType.TEXT_EVENT_STREAM).headers((headers) -> {
			if (lastEventId != null) {
				headers.set("Last-Event-ID", lastEventId);
			}
		}).retrieve().bodyToFlux(EVENTS);
	}

	/**
	 * Subscribes, waits until the stream is open (its retry line arrived), runs an
	 * action, and collects data events.
	 * @param path the stream path and query
	 * @param lastEventId the Last-Event-ID header, or {@code null}
	 * @param count how many data events to collect
	 * @param action what to do once the stream is open
	 * @return the data events
	 */
	public List<ServerSentEvent<String>> takeAfter(String path, String lastEventId, int count, Runnable action) {
		java.util.concurrent.CompletableFuture<Void> open = new java.util.concurrent.CompletableFuture<>();
		java.util.concurrent.CompletableFuture<List<ServerSentEvent<String>>> received = all(path, lastEventId)
			.doOnNext((event) -> {
				if (event.retry() != null) {
					open.complete(null);
				}
			})
			.filter((event) -> event.data() != null)
			.take(count)
			.collectList()
			.timeout(Duration.ofSeconds(30))
			.doOnError(open::completeExceptionally)
			.toFuture();
		open.join();
		action.run();
		return received.join();
	}

	/**
	 * The first {@code count} data events of a stream.
	 * @param path the stream path and query
	 * @param lastEventId the Last-Event-ID header, or {@code null}
	 * @param count how many
	 * @return the events
	 */
	public List<ServerSentEvent<String>> take(String path, String lastEventId, int count) {
		return stream(path, lastEventId).take(count).collectList().block(Duration.ofSeconds(30));
	}

}
