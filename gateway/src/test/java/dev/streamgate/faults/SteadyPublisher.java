package dev.streamgate.faults;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Publishes {@code {"seq":n}} to one topic at a steady pace, one request at a time, and
 * keeps the account: which numbers were acknowledged (202), which were refused with 503,
 * which got no answer (connection refused or cut), and any other answer, which no fault
 * should ever cause. Given several nodes it takes turns, and as a load balancer's passive
 * health check does, leaves out for two seconds a node that gave no answer.
 */
final class SteadyPublisher implements AutoCloseable {

	private final Set<Integer> acknowledged = new ConcurrentSkipListSet<>();

	private final Set<Integer> refused = new ConcurrentSkipListSet<>();

	private final Set<Integer> unanswered = new ConcurrentSkipListSet<>();

	private final List<String> unexpected = new CopyOnWriteArrayList<>();

	private final Map<Integer, Long> answerMillis = new ConcurrentHashMap<>();

	private final AtomicInteger next = new AtomicInteger();

	private final Disposable loop;

	private final CountDownLatch done = new CountDownLatch(1);

	private final long[] downUntil;

	private volatile boolean stopping;

	SteadyPublisher(String baseUrl, String topic, Duration period) {
		this(List.of(baseUrl), topic, period);
	}

	SteadyPublisher(List<String> baseUrls, String topic, Duration period) {
		List<WebClient> clients = baseUrls.stream().map(WebClient::create).toList();
		this.downUntil = new long[clients.size()];
		Arrays.fill(this.downUntil, System.nanoTime());
		this.loop = Flux.interval(period).onBackpressureDrop().takeWhile((tick) -> !this.stopping).concatMap((tick) -> {
			int seq = this.next.getAndIncrement();
			int node = pick(seq);
			long started = System.nanoTime();
			return clients.get(node)
				.post()
				.uri("/api/v1/publish/" + topic)
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"seq\":" + seq + "}")
				.retrieve()
				.toBodilessEntity()
				.timeout(Duration.ofSeconds(30))
				.doOnNext((response) -> {
					if (response.getStatusCode().value() == 202) {
						this.acknowledged.add(seq);
					}
					else {
						this.unexpected.add(seq + ": " + response.getStatusCode());
					}
				})
				.onErrorResume(WebClientResponseException.class, (ex) -> {
					if (ex.getStatusCode().value() == 503 && ex.getHeaders().getFirst("Retry-After") != null
							&& ex.getResponseBodyAsString().contains("\"type\"")) {
						this.refused.add(seq);
					}
					else {
						this.unexpected.add(seq + ": " + ex.getStatusCode() + " " + ex.getResponseBodyAsString());
					}
					return Mono.empty();
				})
				.onErrorResume((ex) -> {
					this.unanswered.add(seq);
					this.downUntil[node] = System.nanoTime() + Duration.ofSeconds(2).toNanos();
					return Mono.empty();
				})
				.doFinally((signal) -> this.answerMillis.put(seq, (System.nanoTime() - started) / 1_000_000));
		}).doFinally((signal) -> this.done.countDown()).subscribe();
	}

	/**
	 * The node of this publish: the next in turn that is not left out.
	 */
	private int pick(int seq) {
		long now = System.nanoTime();
		for (int i = 0; i < this.downUntil.length; i++) {
			int node = (seq + i) % this.downUntil.length;
			if (this.downUntil[node] - now <= 0) {
				return node;
			}
		}
		return seq % this.downUntil.length;
	}

	Set<Integer> acknowledged() {
		return this.acknowledged;
	}

	Set<Integer> refused() {
		return this.refused;
	}

	Set<Integer> unanswered() {
		return this.unanswered;
	}

	List<String> unexpected() {
		return this.unexpected;
	}

	/**
	 * The slowest answer, in milliseconds: no publish may hang.
	 */
	long slowestAnswerMillis() {
		return this.answerMillis.values().stream().mapToLong(Long::longValue).max().orElse(0);
	}

	/**
	 * The slowest answer to the publishes numbered from {@code from} (inclusive) to
	 * {@code to} (exclusive), in milliseconds.
	 */
	long slowestAnswerMillis(int from, int to) {
		return this.answerMillis.entrySet()
			.stream()
			.filter((entry) -> entry.getKey() >= from && entry.getKey() < to)
			.mapToLong(Map.Entry::getValue)
			.max()
			.orElse(0);
	}

	int sent() {
		return this.next.get();
	}

	/**
	 * Stops publishing; the publish in flight gets its answer first, so that every number
	 * sent is accounted for.
	 */
	@Override
	public void close() {
		this.stopping = true;
		try {
			if (!this.done.await(40, TimeUnit.SECONDS)) {
				this.loop.dispose();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.loop.dispose();
		}
	}

}
