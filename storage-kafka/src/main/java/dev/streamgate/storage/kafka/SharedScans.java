package dev.streamgate.storage.kafka;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.scheduler.Scheduler;

import dev.streamgate.core.event.Event;

/**
 * Reads of shared topics' events, one pass over a shared partition at a time for all the
 * reads of its topics.
 * <p>
 * A shared partition holds the records of many topics, so a read of one topic goes over
 * its neighbours' records too. When many readers are behind at once (the webhooks of
 * hundreds of topics on a node that fell behind its memory, subscribers resuming from old
 * cursors), reading each gap on its own fetched every record once per reader: with 500
 * topics over 12 partitions, about 42 times. Here the reads of one partition share a
 * consumer and a pass: each record is fetched once and handed to the reads of its topic.
 * <p>
 * A pass starts at the oldest position asked for and goes forward until none of its reads
 * wants more. A read whose next record the pass has not reached yet joins it; one the
 * pass has gone by waits for the next pass, and while one waits nobody joins, so that a
 * pass ends. A read is handed about what its subscriber asked for: one that stops asking
 * leaves the pass where it stands (once it holds {@link #OVERDRAFT_BYTES} it has not
 * taken) and waits for the next when it asks again, so a slow subscriber never holds up
 * the others.
 */
final class SharedScans implements AutoCloseable {

	/**
	 * What a read may be handed beyond what its subscriber asked for, kept in its queue:
	 * about one fetch of a partition (Kafka's default {@code max.partition.fetch.bytes}).
	 * A subscriber whose demand comes back a moment later from another thread (a
	 * connection's event loop) stays in the pass rather than leaving at every record and
	 * making the next pass fetch the same records again; one that does not drain it
	 * leaves.
	 */
	static final int OVERDRAFT_BYTES = 1024 * 1024;

	private final ReadConsumers consumers;

	private final Function<ConsumerRecord<String, ByteBuffer>, String> route;

	private final Function<ConsumerRecord<String, ByteBuffer>, Event> decode;

	private final Duration poll;

	private final Duration timeout;

	private final Scheduler scheduler;

	private final Map<TopicPartition, Scan> scans = new ConcurrentHashMap<>();

	private volatile boolean closed;

	/**
	 * Reads sharing passes.
	 * @param consumers where a pass takes its consumer, and gives it back
	 * @param route the topic (and incarnation) a record belongs to
	 * @param decode the event of a record
	 * @param poll how long one poll waits
	 * @param timeout how long a consumer's position may take to learn
	 * @param scheduler where the passes run: they block on polls
	 */
	SharedScans(ReadConsumers consumers, Function<ConsumerRecord<String, ByteBuffer>, String> route,
			Function<ConsumerRecord<String, ByteBuffer>, Event> decode, Duration poll, Duration timeout,
			Scheduler scheduler) {
		this.consumers = consumers;
		this.route = route;
		this.decode = decode;
		this.poll = poll;
		this.timeout = timeout;
		this.scheduler = scheduler;
	}

	/**
	 * The events of one topic in a shared partition between two offsets.
	 * @param partition the shared partition
	 * @param route the topic's route, as {@link #route} gives it for its records
	 * @param from the first offset wanted
	 * @param until the last offset wanted
	 * @return the events in order, emitted on the pass's thread
	 */
	Flux<Event> read(TopicPartition partition, String route, long from, long until) {
		if (from > until) {
			return Flux.empty();
		}
		Scan scan = this.scans.computeIfAbsent(partition, Scan::new);
		// Buffered: what is handed beyond the demand waits in the sink's queue.
		return Flux.create((sink) -> {
			Reader reader = new Reader(route, from, until, sink);
			sink.onDispose(() -> scan.leave(reader));
			sink.onRequest((n) -> scan.asked(reader));
			if (sink.requestedFromDownstream() > 0) {
				// Asked before it was told how: once more is harmless.
				scan.asked(reader);
			}
		});
	}

	private static long size(ConsumerRecord<String, ByteBuffer> record) {
		return (record.value() != null) ? record.value().remaining() : 0;
	}

	/** Ends the passes: their reads fail, and later reads too. */
	@Override
	public void close() {
		this.closed = true;
	}

	private enum State {

		/** Not in a pass: it has not asked yet, or stopped asking. */
		IDLE,

		/** Waits for the next pass. */
		WAITING,

		/** In the running pass. */
		ACTIVE,

		/** Read all it wanted, failed or was cancelled. */
		DONE

	}

	/** One read: guarded by its scan's lock, except its sink. */
	private static final class Reader {

		private final String route;

		private final long until;

		private final FluxSink<Event> sink;

		/** The offset of the next record it has not been handed nor passed. */
		private long next;

		/** Bytes handed beyond the demand since the demand was last seen positive. */
		private long overdraft;

		private State state = State.IDLE;

		Reader(String route, long from, long until, FluxSink<Event> sink) {
			this.route = route;
			this.next = from;
			this.until = until;
			this.sink = sink;
		}

	}

	/** The passes over one shared partition. */
	private final class Scan {

		private final TopicPartition partition;

		/** The reads in the running pass, by route; a route without any is removed. */
		private final Map<String, List<Reader>> active = new HashMap<>();

		private final List<Reader> waiting = new ArrayList<>();

		private boolean running;

		/**
		 * The offset of the next record the running pass hands out, or -1 between passes:
		 * a read that wants nothing before it may join.
		 */
		private long position = -1;

		Scan(TopicPartition partition) {
			this.partition = partition;
		}

		/** Its subscriber asked for more: into a pass, unless it is in one. */
		void asked(Reader reader) {
			boolean start;
			synchronized (this) {
				if (reader.state != State.IDLE) {
					return;
				}
				if (this.position >= 0 && this.waiting.isEmpty() && reader.next >= this.position) {
					activate(reader);
				}
				else {
					reader.state = State.WAITING;
					this.waiting.add(reader);
				}
				start = !this.running;
				this.running = true;
			}
			if (start) {
				SharedScans.this.scheduler.schedule(this::run);
			}
		}

		synchronized void leave(Reader reader) {
			if (reader.state == State.ACTIVE) {
				deactivate(reader);
			}
			else if (reader.state == State.WAITING) {
				this.waiting.remove(reader);
			}
			reader.state = State.DONE;
		}

		private void activate(Reader reader) {
			reader.state = State.ACTIVE;
			this.active.computeIfAbsent(reader.route, (route) -> new ArrayList<>(2)).add(reader);
		}

		private void deactivate(Reader reader) {
			List<Reader> readers = this.active.get(reader.route);
			if (readers != null && readers.remove(reader) && readers.isEmpty()) {
				this.active.remove(reader.route);
			}
			reader.state = State.IDLE;
		}

		private void run() {
			KafkaConsumer<String, ByteBuffer> consumer = null;
			try {
				consumer = SharedScans.this.consumers.take();
				consumer.assign(List.of(this.partition));
				while (!SharedScans.this.closed) {
					long start = nextPass();
					if (start == -2) {
						Thread.interrupted();
						SharedScans.this.consumers.give(consumer);
						return;
					}
					if (start >= 0) {
						consumer.seek(this.partition, start);
					}
					try {
						hand(consumer.poll(SharedScans.this.poll));
						passed(consumer.position(this.partition, SharedScans.this.timeout));
					}
					catch (InterruptException ex) {
						// Meant for a task that ran on this pooled thread before (a read
						// cancelled as it ended): nobody interrupts a pass. Going on.
						Thread.interrupted();
					}
				}
				throw new IllegalStateException("The event log is closed");
			}
			catch (RuntimeException ex) {
				if (consumer != null) {
					SharedScans.this.consumers.discard(consumer);
				}
				failAll(ex);
			}
		}

		/**
		 * Between passes, starts the next at the oldest waiting position.
		 * @return the position to seek to, -1 to go on, -2 when nobody wants more
		 */
		private synchronized long nextPass() {
			if (!this.active.isEmpty()) {
				return -1;
			}
			if (this.waiting.isEmpty()) {
				this.running = false;
				this.position = -1;
				return -2;
			}
			long start = Long.MAX_VALUE;
			for (Reader reader : this.waiting) {
				start = Math.min(start, reader.next);
			}
			this.waiting.forEach(this::activate);
			this.waiting.clear();
			this.position = start;
			return start;
		}

		private void hand(Iterable<ConsumerRecord<String, ByteBuffer>> records) {
			List<Reader> targets = new ArrayList<>();
			for (ConsumerRecord<String, ByteBuffer> record : records) {
				String route = SharedScans.this.route.apply(record);
				long offset = record.offset();
				synchronized (this) {
					// A read that joins from now on wants what comes after this record.
					this.position = offset + 1;
					List<Reader> readers = this.active.get(route);
					if (readers == null) {
						continue;
					}
					for (Reader reader : List.copyOf(readers)) {
						if (offset < reader.next || offset > reader.until) {
							continue;
						}
						if (reader.sink.requestedFromDownstream() > 0) {
							// Its queue is empty: whatever was handed beyond was taken.
							reader.overdraft = 0;
						}
						else if (reader.overdraft + size(record) <= OVERDRAFT_BYTES) {
							reader.overdraft += size(record);
						}
						else {
							// Comes back at this record when it asks again.
							deactivate(reader);
							reader.next = offset;
							continue;
						}
						reader.next = offset + 1;
						targets.add(reader);
					}
				}
				if (!targets.isEmpty()) {
					// Outside the lock: a subscriber that has enough leaves from here.
					Event event = SharedScans.this.decode.apply(record);
					targets.forEach((reader) -> reader.sink.next(event));
					targets.clear();
				}
			}
		}

		/** The pass is at the given offset: the reads that wanted nothing later end. */
		private void passed(long reached) {
			List<Reader> ended = new ArrayList<>();
			synchronized (this) {
				this.position = reached;
				for (List<Reader> readers : this.active.values()) {
					for (Reader reader : readers) {
						reader.next = Math.max(reader.next, reached);
						if (reader.until < reached) {
							ended.add(reader);
						}
					}
				}
				ended.forEach((reader) -> {
					deactivate(reader);
					reader.state = State.DONE;
				});
			}
			ended.forEach((reader) -> reader.sink.complete());
		}

		private void failAll(RuntimeException ex) {
			List<Reader> failed = new ArrayList<>();
			synchronized (this) {
				this.active.values().forEach(failed::addAll);
				failed.addAll(this.waiting);
				this.active.clear();
				this.waiting.clear();
				this.running = false;
				this.position = -1;
				failed.forEach((reader) -> reader.state = State.DONE);
			}
			failed.forEach((reader) -> reader.sink.error(ex));
		}

	}

}
