package dev.streamgate.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.util.retry.Retry;

/**
 * An SSE subscriber that behaves like EventSource: when its stream ends or breaks it
 * reconnects after a short pause, sending the id of the last event it received as
 * {@code Last-Event-ID}. Its first connection asks for the topic from its earliest event
 * ({@code lastEventId=earliest}). It keeps every event it received, in order.
 */
final class ResumingSubscriber implements AutoCloseable {

	private static final Pattern SEQ = Pattern.compile("\"seq\":(\\d+)");

	private static final ParameterizedTypeReference<ServerSentEvent<String>> EVENTS = new ParameterizedTypeReference<>() {
	};

	private final List<ServerSentEvent<String>> received = new CopyOnWriteArrayList<>();

	private final AtomicInteger connections = new AtomicInteger();

	private final List<String> failures = new CopyOnWriteArrayList<>();

	private final Disposable loop;

	private volatile String lastEventId;

	ResumingSubscriber(String baseUrl, String topic) {
		WebClient client = WebClient.create(baseUrl);
		this.loop = Flux.defer(() -> {
			this.connections.incrementAndGet();
			return client.get()
				// From the topic's first event; after that the header, which wins,
				// resumes.
				.uri("/api/v1/stream/" + topic + "?lastEventId=earliest")
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
