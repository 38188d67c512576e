package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.storage.Presence;

/**
 * The nodes' entries in a compacted topic ({@code <prefix>presence}) every node that uses
 * it reads whole: {@code held/<node>/<key>} for an entry, {@code beat/<node>} rewritten
 * every {@link #interval} while the node lives.
 * <p>
 * A node whose beat has not arrived for {@link #expiry} is dead (measured on the reader's
 * own clock, so clocks that disagree do not matter): its entries leave {@link #entries()}
 * at once, and the live node of the smallest id settles them, that is hands them to
 * {@link #orphans()} and writes their tombstones. Nodes that see the cluster differently
 * for a moment may both settle one: an orphan is handed over at least once.
 * <p>
 * Reading starts with the first use, so a node that never uses it reads nothing.
 */
final class KafkaPresence implements Presence, AutoCloseable {

	private static final Log logger = LogFactory.getLog(KafkaPresence.class);

	/** The topic, after the prefix. */
	static final String TOPIC = "presence";

	/** How often a node beats. */
	static final Duration INTERVAL = Duration.ofSeconds(3);

	/** How long without a beat makes a node dead. */
	static final Duration EXPIRY = Duration.ofSeconds(10);

	private static final String BEAT = "beat/";

	private static final String HELD = "held/";

	/** The beat of a node that left, while others settle what it held. */
	private static final long LEFT = Long.MIN_VALUE;

	private final String node = UUID.randomUUID().toString();

	private final Duration interval;

	private final Duration expiry;

	private final KafkaConfigLog log;

	/** When each node's last beat arrived, on this node's clock. */
	private final Map<String, Long> beats = new ConcurrentHashMap<>();

	/** Every node's entries, by node then key. */
	private final Map<String, Map<String, byte[]>> held = new ConcurrentHashMap<>();

	private final Sinks.Many<Entry> orphans = Sinks.many().multicast().directBestEffort();

	private final long startedAt = System.nanoTime();

	private Disposable beating;

	private boolean started;

	private volatile boolean closed;

	KafkaPresence(KafkaClients clients, KafkaWriter writer) {
		this(clients, writer, INTERVAL, EXPIRY);
	}

	KafkaPresence(KafkaClients clients, KafkaWriter writer, Duration interval, Duration expiry) {
		this.interval = interval;
		this.expiry = expiry;
		this.log = new KafkaConfigLog(clients.properties().topicPrefix() + TOPIC, clients, writer, this::apply);
	}

	/** This node's id, new at every start. */
	String node() {
		return this.node;
	}

	private synchronized void start() {
		if (this.started || this.closed) {
			return;
		}
		this.started = true;
		this.log.start();
		this.beating = Flux.interval(Duration.ZERO, this.interval).onBackpressureDrop().concatMap((tick) -> {
			settle();
			return this.log.append(BEAT + this.node, new byte[] { 1 }).onErrorResume((ex) -> {
				logger.debug("A beat of node " + this.node + " failed: " + ex.getMessage());
				return Mono.empty();
			});
		}).subscribe();
	}

	@Override
	public Mono<Void> hold(String key, byte[] value) {
		start();
		byte[] copy = value.clone();
		this.held.computeIfAbsent(this.node, (self) -> new ConcurrentHashMap<>()).put(key, copy);
		return this.log.append(HELD + this.node + "/" + key, copy);
	}

	@Override
	public Mono<Void> release(String key) {
		start();
		Map<String, byte[]> own = this.held.get(this.node);
		if (own != null) {
			own.remove(key);
		}
		return this.log.append(HELD + this.node + "/" + key, null);
	}

	@Override
	public Mono<List<Entry>> entries() {
		start();
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
		return Mono.defer(() -> this.log.isCaughtUp() ? Mono.just(true) : Mono.empty())
			.repeatWhenEmpty((empty) -> empty.delayElements(Duration.ofMillis(50))
				.takeWhile((n) -> System.nanoTime() < deadline))
			.switchIfEmpty(Mono.error(() -> new StreamgateException(ProblemType.NOT_READY,
					"This node has not read the cluster's subscriptions yet; retry shortly")
				.withRetryAfter(Duration.ofSeconds(2))))
			.map((ready) -> live());
	}

	private List<Entry> live() {
		long now = System.nanoTime();
		List<Entry> entries = new ArrayList<>();
		this.held.forEach((owner, values) -> {
			if (owner.equals(this.node) || isAlive(owner, now)) {
				values.forEach((key, value) -> entries.add(new Entry(owner, key, value)));
			}
		});
		return entries;
	}

	@Override
	public Flux<Entry> orphans() {
		return this.orphans.asFlux().doOnSubscribe((subscription) -> start());
	}

	private boolean isAlive(String other, long now) {
		long beat = this.beats.getOrDefault(other, this.startedAt);
		return beat != LEFT && now - beat <= this.expiry.toNanos();
	}

	/**
	 * Finds the dead nodes and, when this node is the live one of the smallest id,
	 * settles their entries.
	 */
	private void settle() {
		if (!this.log.isCaughtUp()) {
			return;
		}
		long now = System.nanoTime();
		Set<String> others = new HashSet<>(this.beats.keySet());
		others.addAll(this.held.keySet());
		others.remove(this.node);
		List<String> dead = others.stream().filter((other) -> !isAlive(other, now)).toList();
		boolean settles = others.stream()
			.filter((other) -> isAlive(other, now))
			.allMatch((other) -> other.compareTo(this.node) > 0);
		if (dead.isEmpty() || !settles) {
			return;
		}
		Map<String, byte[]> tombstones = new LinkedHashMap<>();
		dead.forEach((gone) -> settle(gone, tombstones));
		this.log.appendAll(tombstones)
			.subscribe(null, (ex) -> logger.warn("The tombstones of dead nodes' entries failed: " + ex.getMessage()));
	}

	/** Hands a dead node's entries over and adds their tombstones (and its beat's). */
	private void settle(String gone, Map<String, byte[]> tombstones) {
		Map<String, byte[]> entries = this.held.remove(gone);
		Long beat = this.beats.remove(gone);
		if (entries != null) {
			entries.forEach((key, value) -> {
				this.orphans.tryEmitNext(new Entry(gone, key, value));
				tombstones.put(HELD + gone + "/" + key, null);
			});
		}
		boolean left = beat != null && beat == LEFT;
		if (!left) {
			tombstones.put(BEAT + gone, null);
		}
		logger.info("Node " + gone + (left ? " left" : " has not beaten for " + this.expiry.toSeconds() + " s") + ": "
				+ ((entries != null) ? entries.size() : 0) + " of its entries settled by node " + this.node);
	}

	/** Applies a record, on the reader's thread. */
	private void apply(KafkaConfigLog.Entry entry) {
		String key = entry.key();
		if (key.startsWith(BEAT)) {
			String owner = key.substring(BEAT.length());
			if (entry.value() != null) {
				this.beats.put(owner, System.nanoTime());
			}
			else if (!owner.equals(this.node)) {
				// A node that left: what it still held is settled at the next beat.
				Map<String, byte[]> left = this.held.get(owner);
				if (left != null && !left.isEmpty()) {
					this.beats.put(owner, LEFT);
				}
				else {
					this.beats.remove(owner);
					this.held.remove(owner);
				}
			}
		}
		else if (key.startsWith(HELD)) {
			int slash = key.indexOf('/', HELD.length());
			if (slash < 0) {
				return;
			}
			String owner = key.substring(HELD.length(), slash);
			String held = key.substring(slash + 1);
			if (owner.equals(this.node)) {
				// This node's own entries change in memory as it writes them.
				return;
			}
			if (entry.value() != null) {
				this.held.computeIfAbsent(owner, (other) -> new ConcurrentHashMap<>()).put(held, entry.value());
			}
			else {
				Map<String, byte[]> values = this.held.get(owner);
				if (values != null) {
					values.remove(held);
				}
			}
		}
	}

	/**
	 * Stops without a word, as a node that dies: for tests of what the others do.
	 */
	void halt() {
		this.closed = true;
		Disposable running = this.beating;
		if (running != null) {
			running.dispose();
		}
		this.log.close();
	}

	/**
	 * Leaves: this node's beat is tombstoned, and a live node settles at once whatever
	 * this one still held.
	 */
	@Override
	public void close() {
		boolean wasStarted;
		synchronized (this) {
			wasStarted = this.started;
		}
		if (wasStarted && !this.closed) {
			try {
				this.log.append(BEAT + this.node, null).block(Duration.ofSeconds(2));
			}
			catch (RuntimeException ex) {
				logger.warn(
						"Node " + this.node + " left without a word; the others will find it dead: " + ex.getMessage());
			}
		}
		halt();
	}

}
