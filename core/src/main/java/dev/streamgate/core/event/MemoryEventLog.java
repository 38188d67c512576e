package dev.streamgate.core.event;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.streamgate.core.topic.Topic;

/**
 * An {@link EventLog} in memory, for the tests of what sits on top of the log (the way
 * Kafka Connect pairs {@code MemoryConfigBackingStore} with its Kafka store): each
 * topic's partitions are lists, offsets their indexes. It counts the calls that cost a
 * Kafka round trip ({@link #ends()}, {@link #reads()}) and can fail the next append after
 * storing it, as a write whose acknowledgement was lost does. Nothing expires.
 * <p>
 * It is also the node's {@link EventTail}: followers hear of each append on the appending
 * thread, in order, as the tail's one consumer thread tells them.
 */
public class MemoryEventLog implements EventLog, EventTail {

	private final Map<String, List<Listener>> listeners = new ConcurrentHashMap<>();

	private final Map<String, List<List<Event>>> topics = new ConcurrentHashMap<>();

	private final Clock clock;

	private final AtomicInteger ends = new AtomicInteger();

	private final AtomicInteger reads = new AtomicInteger();

	private volatile boolean loseNextAcknowledgement;

	public MemoryEventLog(Clock clock) {
		this.clock = clock;
	}

	/** How many times {@link #end} was asked. */
	public int ends() {
		return this.ends.get();
	}

	/** How many reads were made. */
	public int reads() {
		return this.reads.get();
	}

	/** The next append stores its events and then fails, as a lost acknowledgement. */
	public void loseNextAcknowledgement() {
		this.loseNextAcknowledgement = true;
	}

	/**
	 * Everything stored for a topic, partition by partition.
	 * @param topic the topic
	 * @return the events
	 */
	public synchronized List<Event> all(Topic topic) {
		return partitions(topic).stream().flatMap(List::stream).toList();
	}

	private List<List<Event>> partitions(Topic topic) {
		return this.topics.computeIfAbsent(topic.id(), (id) -> {
			List<List<Event>> partitions = new ArrayList<>();
			for (int p = 0; p < topic.partitions(); p++) {
				partitions.add(new ArrayList<>());
			}
			return partitions;
		});
	}

	@Override
	public Mono<Void> create(Topic topic) {
		return Mono.fromRunnable(() -> partitions(topic));
	}

	@Override
	public Mono<Void> update(Topic previous, Topic topic) {
		return Mono.fromRunnable(() -> {
			List<List<Event>> partitions = partitions(previous);
			synchronized (this) {
				while (partitions.size() < topic.partitions()) {
					partitions.add(new ArrayList<>());
				}
			}
		});
	}

	@Override
	public Mono<Void> delete(Topic topic) {
		return Mono.fromRunnable(() -> this.topics.remove(topic.id()));
	}

	@Override
	public Mono<EventLogStatus> status(Topic topic) {
		return end(topic).map((end) -> {
			List<Event> all = all(topic);
			Instant last = all.stream().map(Event::publishedAt).max(Instant::compareTo).orElse(null);
			return new EventLogStatus(topic.partitions(), CursorFormat.of(topic).format(end), (long) all.size(), last);
		});
	}

	@Override
	public Mono<List<EventPosition>> append(Topic topic, List<OutgoingEvent> events) {
		return Mono.defer(() -> {
			List<EventPosition> positions = new ArrayList<>();
			synchronized (this) {
				List<List<Event>> partitions = partitions(topic);
				List<Listener> following = this.listeners.getOrDefault(topic.id(), List.of());
				for (int i = 0; i < events.size(); i++) {
					OutgoingEvent event = events.get(i);
					String key = event.attributes().key();
					int partition = (key != null) ? Math.floorMod(key.hashCode(), partitions.size())
							: i % partitions.size();
					List<Event> log = partitions.get(partition);
					Event stored = new Event(partition, log.size(), event.type(), this.clock.instant(), event.data(),
							event.attributes());
					log.add(stored);
					positions.add(new EventPosition(partition, log.size() - 1, partitions.size()));
					following.forEach((listener) -> listener.onEvent(stored));
				}
			}
			if (this.loseNextAcknowledgement) {
				this.loseNextAcknowledgement = false;
				return Mono.error(new IllegalStateException("acknowledgement lost (MemoryEventLog)"));
			}
			return Mono.just(positions);
		});
	}

	@Override
	public AutoCloseable follow(Topic topic, Listener listener) {
		synchronized (this) {
			listener.onStart(lastOffsets(topic));
			this.listeners.computeIfAbsent(topic.id(), (id) -> new CopyOnWriteArrayList<>()).add(listener);
		}
		return () -> {
			List<Listener> following = this.listeners.get(topic.id());
			if (following != null) {
				following.remove(listener);
			}
		};
	}

	@Override
	public Flux<Event> read(Topic topic, Cursor after, Cursor until) {
		return Flux.defer(() -> {
			this.reads.incrementAndGet();
			List<Event> found = new ArrayList<>();
			synchronized (this) {
				List<List<Event>> partitions = partitions(topic);
				for (int p = 0; p < partitions.size(); p++) {
					for (Event event : partitions.get(p)) {
						if (event.offset() > after.last(p) && event.offset() <= until.last(p)) {
							found.add(event);
						}
					}
				}
			}
			return Flux.fromIterable(found);
		});
	}

	@Override
	public Mono<Cursor> end(Topic topic) {
		return Mono.fromSupplier(() -> {
			this.ends.incrementAndGet();
			return lastOffsets(topic);
		});
	}

	private synchronized Cursor lastOffsets(Topic topic) {
		List<List<Event>> partitions = partitions(topic);
		long[] last = new long[partitions.size()];
		for (int p = 0; p < last.length; p++) {
			last[p] = partitions.get(p).size() - 1;
		}
		return Cursor.of(last);
	}

	@Override
	public Mono<Cursor> at(Topic topic, Instant time) {
		return Mono.fromSupplier(() -> {
			synchronized (this) {
				List<List<Event>> partitions = partitions(topic);
				long[] last = new long[partitions.size()];
				for (int p = 0; p < last.length; p++) {
					last[p] = partitions.get(p)
						.stream()
						.filter((event) -> event.publishedAt().isBefore(time))
						.mapToLong(Event::offset)
						.max()
						.orElse(-1);
				}
				return Cursor.of(last);
			}
		});
	}

	@Override
	public Mono<Cursor> start(Topic topic) {
		return Mono.fromSupplier(() -> Cursor.beforeAll(partitions(topic).size()));
	}

}
