package dev.streamgate.storage.memory;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.CursorFormat;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventLogStatus;
import dev.streamgate.core.event.EventPosition;
import dev.streamgate.core.event.OutgoingEvent;
import dev.streamgate.core.storage.EventLog;
import dev.streamgate.core.storage.EventTail;
import dev.streamgate.core.topic.Topic;

/**
 * The event log of a node that keeps everything in memory
 * ({@code streamgate.storage=memory}) and of the tests of what sits on top of the log
 * (the way Kafka Connect pairs {@code MemoryConfigBackingStore} with its Kafka store):
 * each topic's partitions are sequences of events numbered from 0 as Kafka numbers
 * offsets, each topic with its own lock.
 * <p>
 * Events go as Kafka's retention makes them go: older than the topic's retention, or the
 * oldest of a partition once the partition holds more than its share of
 * {@code maxTopicBytes}; a cursor before what is left then stands before the start, as it
 * does over Kafka. All topics together keep at most {@code maxBytes}: past it, the topic
 * that appends gives up its oldest events (each partition keeps its newest), so that a
 * node with many topics cannot fill its heap. Nothing survives the process.
 * <p>
 * It is also the node's {@link EventTail}: followers hear of each append on the appending
 * thread, in order, under the topic's lock, as the Kafka tail's one consumer thread tells
 * them. For tests it counts the calls that cost a Kafka round trip ({@link #ends()},
 * {@link #reads()}) and can fail the next append after storing it, as a write whose
 * acknowledgement was lost does.
 */
public class MemoryEventLog implements EventLog, EventTail {

	/** What an event costs beside its data: the event, its attributes, its slot. */
	static final int EVENT_OVERHEAD = 256;

	private final Map<String, TopicLog> topics = new ConcurrentHashMap<>();

	private final Clock clock;

	private final long maxTopicBytes;

	private final long maxBytes;

	/** What every topic keeps, together. */
	private final AtomicLong stored = new AtomicLong();

	private final AtomicInteger ends = new AtomicInteger();

	private final AtomicInteger reads = new AtomicInteger();

	private volatile boolean loseNextAcknowledgement;

	/**
	 * A log bounded by each topic's retention only.
	 * @param clock when events are published
	 */
	public MemoryEventLog(Clock clock) {
		this(clock, Long.MAX_VALUE, Long.MAX_VALUE);
	}

	/**
	 * A log bounded by each topic's retention, a size per topic and a size in all.
	 * @param clock when events are published
	 * @param maxTopicBytes how much one topic keeps at most, its partitions sharing it
	 * @param maxBytes how much all topics keep together at most
	 */
	public MemoryEventLog(Clock clock, long maxTopicBytes, long maxBytes) {
		this.clock = clock;
		this.maxTopicBytes = maxTopicBytes;
		this.maxBytes = maxBytes;
	}

	/**
	 * What all topics keep, counted as their bounds count it.
	 * @return the bytes
	 */
	public long storedBytes() {
		return this.stored.get();
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
	 * Everything retained for a topic, partition by partition.
	 * @param topic the topic
	 * @return the events
	 */
	public List<Event> all(Topic topic) {
		TopicLog log = log(topic);
		synchronized (log) {
			log.expire(topic, this.clock.instant());
			List<Event> all = new ArrayList<>();
			log.partitions.forEach((partition) -> all.addAll(partition.retained()));
			return all;
		}
	}

	private TopicLog log(Topic topic) {
		return this.topics.computeIfAbsent(topic.id(), (id) -> new TopicLog(topic.partitions(), this.stored));
	}

	@Override
	public Mono<Void> create(Topic topic) {
		return Mono.fromRunnable(() -> log(topic));
	}

	@Override
	public Mono<Void> limitBytes(Topic topic, long bytes) {
		return Mono.fromRunnable(() -> {
			TopicLog log = log(topic);
			synchronized (log) {
				log.maxPartitionBytes = bytes;
			}
		});
	}

	@Override
	public Mono<Void> update(Topic previous, Topic topic) {
		return Mono.fromRunnable(() -> {
			TopicLog log = log(previous);
			synchronized (log) {
				while (log.partitions.size() < topic.partitions()) {
					log.partitions.add(new Partition(log.stored));
				}
			}
		});
	}

	@Override
	public Mono<Void> delete(Topic topic) {
		return Mono.fromRunnable(() -> {
			TopicLog removed = this.topics.remove(topic.id());
			if (removed != null) {
				synchronized (removed) {
					removed.partitions.forEach(Partition::clear);
				}
			}
		});
	}

	@Override
	public Mono<EventLogStatus> status(Topic topic) {
		return Mono.fromSupplier(() -> {
			TopicLog log = log(topic);
			synchronized (log) {
				log.expire(topic, this.clock.instant());
				long retained = 0;
				Instant last = null;
				for (Partition partition : log.partitions) {
					retained += partition.size();
					Event newest = partition.newest();
					if (newest != null && (last == null || newest.publishedAt().isAfter(last))) {
						last = newest.publishedAt();
					}
				}
				return new EventLogStatus(log.partitions.size(), CursorFormat.of(topic).format(log.lastOffsets()),
						retained, last);
			}
		});
	}

	@Override
	public Mono<List<EventPosition>> append(Topic topic, List<OutgoingEvent> events) {
		return Mono.defer(() -> {
			List<EventPosition> positions = new ArrayList<>(events.size());
			TopicLog log = log(topic);
			synchronized (log) {
				Instant now = this.clock.instant();
				int partitions = log.partitions.size();
				for (int i = 0; i < events.size(); i++) {
					OutgoingEvent event = events.get(i);
					String key = event.attributes().key();
					int p = (key != null) ? Math.floorMod(key.hashCode(), partitions) : log.nextPartition();
					Partition partition = log.partitions.get(p);
					Event stored = new Event(p, partition.next(), event.type(), now, event.data(), event.attributes());
					partition.add(stored, Math.min(this.maxTopicBytes / partitions, log.maxPartitionBytes));
					log.yieldOver(this.maxBytes);
					positions.add(new EventPosition(p, stored.offset(), partitions));
					log.listeners.forEach((listener) -> listener.onEvent(stored));
				}
				log.expire(topic, now);
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
		TopicLog log = log(topic);
		synchronized (log) {
			listener.onStart(log.lastOffsets());
			log.listeners.add(listener);
		}
		return () -> log.listeners.remove(listener);
	}

	@Override
	public Flux<Event> read(Topic topic, Cursor after, Cursor until) {
		return Flux.defer(() -> {
			this.reads.incrementAndGet();
			List<Event> found = new ArrayList<>();
			TopicLog log = log(topic);
			synchronized (log) {
				log.expire(topic, this.clock.instant());
				for (int p = 0; p < log.partitions.size(); p++) {
					log.partitions.get(p).between(after.last(p), until.last(p), found);
				}
			}
			return Flux.fromIterable(found);
		});
	}

	@Override
	public Mono<Cursor> end(Topic topic) {
		return Mono.fromSupplier(() -> {
			this.ends.incrementAndGet();
			TopicLog log = log(topic);
			synchronized (log) {
				return log.lastOffsets();
			}
		});
	}

	@Override
	public Mono<Cursor> at(Topic topic, Instant time) {
		return Mono.fromSupplier(() -> {
			TopicLog log = log(topic);
			synchronized (log) {
				log.expire(topic, this.clock.instant());
				long[] last = new long[log.partitions.size()];
				for (int p = 0; p < last.length; p++) {
					last[p] = log.partitions.get(p).lastBefore(time);
				}
				return Cursor.of(last);
			}
		});
	}

	@Override
	public Mono<Cursor> start(Topic topic) {
		return Mono.fromSupplier(() -> {
			TopicLog log = log(topic);
			synchronized (log) {
				log.expire(topic, this.clock.instant());
				long[] before = new long[log.partitions.size()];
				for (int p = 0; p < before.length; p++) {
					before[p] = log.partitions.get(p).first() - 1;
				}
				return Cursor.of(before);
			}
		});
	}

	/** One topic's partitions and followers; guarded by itself. */
	private static final class TopicLog {

		private final List<Partition> partitions = new ArrayList<>();

		private final List<Listener> listeners = new CopyOnWriteArrayList<>();

		/**
		 * Where the next event without a key goes: round robin, as Kafka spreads them.
		 */
		private int unkeyed;

		/** What every topic keeps, together. */
		private final AtomicLong stored;

		/** What each partition keeps at most, besides the log's bound per topic. */
		private long maxPartitionBytes = Long.MAX_VALUE;

		TopicLog(int partitions, AtomicLong stored) {
			this.stored = stored;
			for (int p = 0; p < partitions; p++) {
				this.partitions.add(new Partition(stored));
			}
		}

		/**
		 * While all topics keep more than they may, drops this topic's oldest events,
		 * from its fullest partition first, down to the newest of each partition.
		 */
		void yieldOver(long maxBytes) {
			while (this.stored.get() > maxBytes) {
				Partition fullest = null;
				for (Partition partition : this.partitions) {
					if (partition.size() > 1 && (fullest == null || partition.bytes > fullest.bytes)) {
						fullest = partition;
					}
				}
				if (fullest == null) {
					return;
				}
				fullest.dropOldest();
			}
		}

		int nextPartition() {
			int p = this.unkeyed;
			this.unkeyed = (p + 1) % this.partitions.size();
			return p;
		}

		Cursor lastOffsets() {
			long[] last = new long[this.partitions.size()];
			for (int p = 0; p < last.length; p++) {
				last[p] = this.partitions.get(p).next() - 1;
			}
			return Cursor.of(last);
		}

		void expire(Topic topic, Instant now) {
			if (topic.retention() == null) {
				return;
			}
			Instant cutoff = now.minus(topic.retention());
			this.partitions.forEach((partition) -> partition.expireBefore(cutoff));
		}

	}

	/**
	 * One partition: the retained events in offset order, the oldest at {@code head}.
	 */
	private static final class Partition {

		private final ArrayList<Event> events = new ArrayList<>();

		/** What every topic keeps, together. */
		private final AtomicLong stored;

		/** What each partition keeps at most, besides the log's bound per topic. */
		private long maxPartitionBytes = Long.MAX_VALUE;

		private int head;

		/** The offset of the event at {@code head}, or of the next one when empty. */
		private long first;

		private long bytes;

		Partition(AtomicLong stored) {
			this.stored = stored;
		}

		long first() {
			return this.first;
		}

		void clear() {
			this.stored.addAndGet(-this.bytes);
			this.bytes = 0;
			this.events.clear();
			this.head = 0;
		}

		long next() {
			return this.first + size();
		}

		int size() {
			return this.events.size() - this.head;
		}

		Event newest() {
			return (size() > 0) ? this.events.get(this.events.size() - 1) : null;
		}

		List<Event> retained() {
			return this.events.subList(this.head, this.events.size());
		}

		void add(Event event, long maxBytes) {
			this.events.add(event);
			long cost = cost(event);
			this.bytes += cost;
			this.stored.addAndGet(cost);
			while (this.bytes > maxBytes && size() > 1) {
				dropOldest();
			}
		}

		void expireBefore(Instant cutoff) {
			while (size() > 0 && this.events.get(this.head).publishedAt().isBefore(cutoff)) {
				dropOldest();
			}
		}

		void dropOldest() {
			Event dropped = this.events.set(this.head, null);
			long cost = cost(dropped);
			this.bytes -= cost;
			this.stored.addAndGet(-cost);
			this.head++;
			this.first++;
			if (this.head >= 1024 && this.head > this.events.size() / 2) {
				this.events.subList(0, this.head).clear();
				this.head = 0;
			}
		}

		void between(long after, long until, List<Event> into) {
			long from = Math.max(after + 1, this.first);
			long to = Math.min(until, next() - 1);
			for (long offset = from; offset <= to; offset++) {
				into.add(this.events.get(this.head + (int) (offset - this.first)));
			}
		}

		long lastBefore(Instant time) {
			long last = this.first - 1;
			for (int i = this.head; i < this.events.size(); i++) {
				Event event = this.events.get(i);
				if (!event.publishedAt().isBefore(time)) {
					break;
				}
				last = event.offset();
			}
			return last;
		}

		private static long cost(Event event) {
			return EVENT_OVERHEAD + ((event.data() != null) ? event.data().length : 0);
		}

	}

}
