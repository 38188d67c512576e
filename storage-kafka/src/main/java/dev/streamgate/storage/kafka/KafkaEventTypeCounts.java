package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.streamgate.core.storage.EventTypeCounts;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.webhook.WebhookJson;

/**
 * Event type counts in the compacted {@code event-types} topic. Each node counts what it
 * publishes and writes its own running total per topic and type, at most every
 * {@link #FLUSH_EVERY}: key = {@code <topic id>@<incarnation> NUL <type> NUL <node>},
 * value = {@code {"count": n, "lastSeen": time}}, tombstone = the topic was deleted. A
 * topic's count of a type is the sum over the nodes that ever published it: a node counts
 * under a new name after each start, and its earlier totals stay as they were written.
 * Keys carry the incarnation, so a topic created again under an old id starts from
 * nothing.
 */
public final class KafkaEventTypeCounts implements EventTypeCounts, AutoCloseable {

	private static final Log logger = LogFactory.getLog(KafkaEventTypeCounts.class);

	static final Duration FLUSH_EVERY = Duration.ofSeconds(2);

	private static final char SEPARATOR = '\u0000';

	private final KafkaKeyedView<Total> view;

	private final String node = UUID.randomUUID().toString();

	/** This node's running totals, by key. */
	private final Map<String, Total> own = new ConcurrentHashMap<>();

	/** The keys whose totals changed since the last flush. */
	private final Map<String, Boolean> changed = new ConcurrentHashMap<>();

	private Disposable flushing;

	KafkaEventTypeCounts(KafkaClients clients, KafkaWriter writer) {
		this.view = new KafkaKeyedView<>(clients.properties().topicPrefix() + "event-types", clients, writer,
				(bytes) -> WebhookJson.fromBytes(bytes, Total.class), (held, newer) -> newer);
	}

	void start() {
		this.view.start();
		this.flushing = Flux.interval(FLUSH_EVERY).concatMap((tick) -> flush()).subscribe();
	}

	@Override
	public void add(Topic topic, String type, long events, Instant at) {
		String key = prefix(topic) + type + SEPARATOR + this.node;
		this.own.merge(key, new Total(events, at), Total::plus);
		this.changed.put(key, Boolean.TRUE);
	}

	/**
	 * Writes the totals that changed; one that cannot be written now is written next
	 * time.
	 */
	private Mono<Void> flush() {
		List<String> keys = new ArrayList<>(this.changed.keySet());
		return Flux.fromIterable(keys).flatMap((key) -> {
			this.changed.remove(key);
			Total total = this.own.get(key);
			if (total == null) {
				return Mono.empty();
			}
			return this.view.write(key, WebhookJson.toBytes(total)).onErrorResume((ex) -> {
				logger.debug("Cannot write the event type count " + key + " now", ex);
				this.changed.put(key, Boolean.TRUE);
				return Mono.empty();
			});
		}).then();
	}

	@Override
	public List<TypeCount> counts(Topic topic) {
		String prefix = prefix(topic);
		Map<String, TypeCount> byType = new TreeMap<>();
		this.view.withPrefix(prefix).forEach((key, total) -> {
			String rest = key.substring(prefix.length());
			String type = rest.substring(0, Math.max(rest.indexOf(SEPARATOR), 0));
			byType.merge(type, new TypeCount(type, total.count(), total.lastSeen()), TypeCount::plus);
		});
		return List.copyOf(byType.values());
	}

	@Override
	public Mono<Void> forget(Topic topic) {
		String prefix = prefix(topic);
		this.own.keySet().removeIf((key) -> key.startsWith(prefix));
		this.changed.keySet().removeIf((key) -> key.startsWith(prefix));
		return Flux.fromIterable(this.view.withPrefix(prefix).keySet())
			.flatMap((key) -> this.view.write(key, null))
			.then();
	}

	private static String prefix(Topic topic) {
		return topic.id() + "@" + topic.incarnation() + SEPARATOR;
	}

	@Override
	public void close() {
		if (this.flushing != null) {
			this.flushing.dispose();
		}
		flush().block(Duration.ofSeconds(5));
		this.view.close();
	}

	/**
	 * A node's running total of one type of a topic.
	 *
	 * @param count events published
	 * @param lastSeen when the newest was
	 */
	record Total(long count, Instant lastSeen) {

		Total plus(Total other) {
			return new Total(this.count + other.count,
					this.lastSeen.isAfter(other.lastSeen) ? this.lastSeen : other.lastSeen);
		}

	}

}
