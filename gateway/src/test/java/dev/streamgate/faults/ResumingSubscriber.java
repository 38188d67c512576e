package dev.streamgate.faults;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.json.Json;
import jakarta.json.JsonStructure;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.util.retry.Retry;

import dev.streamgate.core.patch.JsonPatches;

/**
 * An SSE subscriber that behaves like EventSource: when its stream ends or breaks it
 * reconnects after a short pause, sending the id of the last event it received as
 * {@code Last-Event-ID}. Its first connection asks for the topic from its earliest event
 * ({@code lastEventId=earliest}). Given several nodes, it starts on the first and, as a
 * client behind a load balancer does, goes to the next when a connection fails (its node
 * died or shut down). It keeps every event it received, in order.
 */
final class ResumingSubscriber implements AutoCloseable {

	private static final Pattern SEQ = Pattern.compile("\"seq\":(\\d+)");

	private static final ParameterizedTypeReference<ServerSentEvent<String>> EVENTS = new ParameterizedTypeReference<>() {
	};

	private final List<ServerSentEvent<String>> received = new CopyOnWriteArrayList<>();

	private final AtomicInteger connections = new AtomicInteger();

	private final List<String> failures = new CopyOnWriteArrayList<>();

	private final Disposable loop;

	private final AtomicInteger node = new AtomicInteger();

	private volatile String lastEventId;

	ResumingSubscriber(String baseUrl, String topic) {
		// From the topic's first event; after that the header, which wins, resumes.
		this(List.of(baseUrl), "/api/v1/stream/" + topic + "?lastEventId=earliest");
	}

	/**
	 * A subscriber of any stream.
	 * @param baseUrls the nodes it may connect to, the first one first
	 * @param path the stream's path and query
	 */
	ResumingSubscriber(List<String> baseUrls, String path) {
		List<WebClient> clients = baseUrls.stream().map(WebClient::create).toList();
		this.loop = Flux.defer(() -> {
			this.connections.incrementAndGet();
			return clients.get(this.node.get() % clients.size())
				.get()
				.uri(path)
				.accept(MediaType.TEXT_EVENT_STREAM)
				.headers((headers) -> {
					if (this.lastEventId != null) {
						headers.set("Last-Event-ID", this.lastEventId);
					}
				})
				.retrieve()
				.bodyToFlux(EVENTS);
		}).doOnNext((event) -> {
			if (event.data() != null) {
				this.received.add(event);
				if (event.id() != null) {
					this.lastEventId = event.id();
				}
			}
		}).doOnError((ex) -> {
			this.node.incrementAndGet();
			if (this.failures.size() < 20) {
				this.failures.add(ex.toString());
			}
		})
			.retryWhen(Retry.fixedDelay(Long.MAX_VALUE, Duration.ofMillis(250)))
			.repeatWhen((ends) -> ends.delayElements(Duration.ofMillis(250)))
			.subscribe();
	}

	/**
	 * The publisher's numbers of the {@code event} events received, in arrival order,
	 * duplicates included.
	 */
	List<Integer> sequence() {
		List<Integer> numbers = new ArrayList<>();
		for (ServerSentEvent<String> event : this.received) {
			Matcher seq = SEQ.matcher(event.data());
			if ("event".equals(event.event()) && seq.find()) {
				numbers.add(Integer.parseInt(seq.group(1)));
			}
		}
		return numbers;
	}

	/**
	 * The document of a snapshot stream as its events rebuild it: each {@code snapshot}
	 * replaces it, each {@code patch} applies to it.
	 * @throws AssertionError when a patch does not apply
	 */
	JsonStructure document() {
		JsonStructure document = null;
		for (ServerSentEvent<String> event : this.received) {
			if ("snapshot".equals(event.event())) {
				document = (JsonStructure) JsonPatches.read(event.data().getBytes(StandardCharsets.UTF_8));
			}
			else if ("patch".equals(event.event())) {
				try {
					document = JsonPatches.apply(document,
							Json.createReader(new StringReader(event.data())).readArray());
				}
				catch (RuntimeException ex) {
					throw new AssertionError("patch " + event.id() + " does not apply to " + document, ex);
				}
			}
		}
		return document;
	}

	Set<Integer> distinct() {
		return new LinkedHashSet<>(sequence());
	}

	/**
	 * The data of the {@code problem} events received, and why connections broke.
	 */
	List<String> errors() {
		List<String> errors = new ArrayList<>(this.failures);
		this.received.stream()
			.filter((event) -> "problem".equals(event.event()))
			.forEach((event) -> errors.add(event.data()));
		return errors;
	}

	List<String> eventTypes() {
		return this.received.stream().map(ServerSentEvent::event).distinct().toList();
	}

	int connections() {
		return this.connections.get();
	}

	@Override
	public void close() {
		this.loop.dispose();
	}

}
