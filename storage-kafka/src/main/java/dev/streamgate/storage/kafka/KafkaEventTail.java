package dev.streamgate.storage.kafka;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.storage.EventTail;
import dev.streamgate.core.topic.Topic;

/**
 * One Kafka consumer per node reading the new events of every followed topic.
 * <p>
 * It assigns partitions itself (no consumer group: every node needs every partition of
 * the topics its clients watch). One thread owns the consumer; follow and unfollow
 * requests are queued to it, so a listener sees its start position and then every later
 * event, with no gap between the two.
 * <p>
 * The thread never waits on one topic: commands only change the assignment, and a new
 * listener's start position is asked for without waiting ({@code position(p, 0)}) after
 * each poll until Kafka knows it. A topic whose partitions are gone (deleted while a
 * follower started) stays pending, costing nothing, until its follower stops; the other
 * topics go on being polled meanwhile.
 * <p>
 * A record this node wrote is delivered when Kafka acknowledges it, on the producer's
 * thread, if every record before it in its partition was delivered: the fetch that brings
 * it back a little later, one more round trip through the broker and two more threads
 * woken, skips it ({@link DeliveryOrder}). Deliveries, listener changes and start
 * positions share one lock, so a listener sees each event once and in order, and a new
 * one exactly the events after its start.
 * <p>
 * Every node must still fetch, to learn of other nodes' writes. After a fetch that
 * brought only records delivered at their acknowledgement (this node writes alone
 * lately), the tail waits {@code streamgate.kafka.tail-pause} before it fetches again, so
 * that one fetch carries many events instead of one each. The wait ends early for a
 * command, and for an acknowledgement that waits for a record only the fetch brings.
 * Another node's event may reach this node's listeners up to the pause later; a node that
 * does not write, or whose fetches bring others' records, never waits.
 */
final class KafkaEventTail implements EventTail, AutoCloseable {

	private static final Log logger = LogFactory.getLog(KafkaEventTail.class);

	private static final Duration POLL = Duration.ofMillis(100);

	private static final Runnable NOTHING = () -> {
	};

	/** A start still pending after this long is reported once. */
	private static final Duration SLOW_START = Duration.ofSeconds(10);

	private final KafkaClients clients;

	private final KafkaEventLog eventLog;

	private final LinkedBlockingQueue<Runnable> commands = new LinkedBlockingQueue<>();

	/** Guards the listeners and the delivery order. */
	private final Object delivering = new Object();

	/**
	 * By route (see {@link KafkaEventLog#route}): an SSE hub and a webhook feed of the
	 * same topic both listen.
	 */
	private final Map<String, List<Listener>> listeners = new HashMap<>();

	private final DeliveryOrder<Delivery> order = new DeliveryOrder<>(this::deliver);

	/**
	 * How many followers (started or pending) read each assigned partition: a shared
	 * partition carries many topics.
	 */
	private final Map<TopicPartition, Integer> readers = new HashMap<>();

	/** Followers waiting for their start position, in the order they asked. */
	private final List<Following> pending = new ArrayList<>();

	private volatile KafkaConsumer<String, ByteBuffer> consumer;

	private volatile ConsumerThread thread;

	/** Guarded by this: no thread starts once closed. */
	private boolean closed;

	private volatile long polledAt = System.nanoTime();

	private volatile String pendingNames = "[]";

	private final Duration pause;

	/** Whether the thread waits before its next fetch. */
	private volatile boolean resting;

	KafkaEventTail(KafkaClients clients, KafkaEventLog eventLog) {
		this.clients = clients;
		this.eventLog = eventLog;
		this.pause = clients.properties().tailPause();
		eventLog.onWritten(this::written);
	}

	@Override
	public synchronized AutoCloseable follow(Topic topic, Listener listener) {
		if (this.thread == null && !this.closed) {
			ConsumerThread started = new ConsumerThread("streamgate-event-tail", this::run);
			this.thread = started;
			started.start();
		}
		Following following = new Following(this.eventLog.route(topic), this.eventLog.partitions(topic), listener,
				System.nanoTime());
		submit(() -> start(following));
		return () -> {
			following.stopped = true;
			submit(() -> stop(following));
		};
	}

	private void submit(Runnable command) {
		this.commands.add(command);
		ConsumerThread current = this.thread;
		if (current != null) {
			current.wakeup();
		}
	}

	private void start(Following following) {
		if (following.stopped || this.pending.contains(following)) {
			return;
		}
		List<TopicPartition> added = following.partitions.stream()
			.filter((partition) -> !this.readers.containsKey(partition))
			.toList();
		if (!added.isEmpty()) {
			Set<TopicPartition> assignment = new HashSet<>(this.consumer.assignment());
			assignment.addAll(added);
			this.consumer.assign(assignment);
			this.consumer.seekToEnd(added);
		}
		following.partitions.forEach((partition) -> this.readers.merge(partition, 1, Integer::sum));
		this.pending.add(following);
		this.pendingNames = pendingNames();
	}

	private String pendingNames() {
		return this.pending.stream().map((following) -> following.name).toList().toString();
	}

	/**
	 * Starts the pending followers whose positions Kafka knows now. A partition already
	 * read is not sought again: its other listeners would miss the events between their
	 * position and the end. The new listener starts where the consumer stands, which the
	 * others have seen.
	 */
	private void startPending() {
		for (Iterator<Following> it = this.pending.iterator(); it.hasNext();) {
			Following following = it.next();
			synchronized (this.delivering) {
				Cursor start = knownPosition(following);
				if (start == null) {
					reportSlow(following);
					continue;
				}
				it.remove();
				this.listeners.computeIfAbsent(following.name, (key) -> new ArrayList<>()).add(following.listener);
				following.listener.onStart(start);
			}
			this.pendingNames = pendingNames();
		}
	}

	/**
	 * The cursor just before the next offset to deliver (the consumer's position, or past
	 * it after records delivered at their acknowledgement), or null while Kafka does not
	 * know it.
	 */
	private Cursor knownPosition(Following following) {
		long[] last = new long[following.partitions.size()];
		try {
			for (int i = 0; i < last.length; i++) {
				TopicPartition partition = following.partitions.get(i);
				last[i] = this.order.start(partition, this.consumer.position(partition, Duration.ZERO)) - 1;
			}
			return Cursor.of(last);
		}
		catch (TimeoutException ex) {
			following.problem = ex.getMessage();
			return null;
		}
		catch (WakeupException ex) {
			throw ex;
		}
		catch (KafkaException | IllegalStateException ex) {
			// One follower's trouble must not stop the others' starts: it stays pending.
			logger.debug("Event tail: no position for " + following.name + " yet: " + ex.getMessage());
			following.problem = ex.toString();
			return null;
		}
	}

	private void reportSlow(Following following) {
		if (!following.reported && System.nanoTime() - following.since > SLOW_START.toNanos()) {
			following.reported = true;
			logger.warn("Event tail: " + following.name + " has no known position after " + SLOW_START.toSeconds()
					+ " s (deleted, or Kafka unreachable): " + following.problem + "; assigned "
					+ this.consumer.assignment().size() + " partitions; it stays pending until followed no more");
		}
	}

	private void stop(Following following) {
		boolean wasPending = this.pending.remove(following);
		this.pendingNames = pendingNames();
		boolean wasListening;
		synchronized (this.delivering) {
			List<Listener> followers = this.listeners.get(following.name);
			wasListening = followers != null && followers.remove(following.listener);
			if (followers != null && followers.isEmpty()) {
				this.listeners.remove(following.name);
			}
		}
		if (!wasPending && !wasListening) {
			// never started, or stopped already
			return;
		}
		List<TopicPartition> unread = new ArrayList<>();
		for (TopicPartition partition : following.partitions) {
			if (this.readers.merge(partition, -1, Integer::sum) <= 0) {
				this.readers.remove(partition);
				unread.add(partition);
			}
		}
		if (!unread.isEmpty()) {
			synchronized (this.delivering) {
				unread.forEach(this.order::stop);
			}
			List<TopicPartition> assignment = new ArrayList<>(this.consumer.assignment());
			assignment.removeAll(unread);
			this.consumer.assign(assignment);
		}
	}

	private void run() {
		try (KafkaConsumer<String, ByteBuffer> kafkaConsumer = KafkaEventLog.consumer(this.clients.consumer("tail"))) {
			this.consumer = this.thread.polls(kafkaConsumer);
			while (this.thread.running()) {
				try {
					runCommands();
					if (kafkaConsumer.assignment().isEmpty()) {
						Runnable next = this.commands.poll(1, TimeUnit.SECONDS);
						if (next != null) {
							runCommand(next);
						}
						continue;
					}
					startPending();
					boolean onlyOwn = dispatch(kafkaConsumer.poll(POLL));
					this.polledAt = System.nanoTime();
					startPending();
					if (onlyOwn && this.pending.isEmpty()) {
						rest();
					}
				}
				catch (WakeupException ex) {
					// a command arrived, or close() was called
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				catch (RuntimeException ex) {
					if (this.thread.running()) {
						logger.warn("Event tail: " + ex.getMessage());
					}
				}
			}
		}
	}

	private void runCommands() {
		Runnable command;
		while ((command = this.commands.poll()) != null) {
			runCommand(command);
		}
	}

	/**
	 * Runs a command. Commands only change the assignment and this thread's maps, which
	 * does not wait on Kafka; a wakeup meant for poll() may still interrupt one, which is
	 * then run again (commands are idempotent, and no event is dispatched in between).
	 */
	private void runCommand(Runnable command) {
		while (true) {
			try {
				command.run();
				return;
			}
			catch (WakeupException ex) {
				// run it again
			}
		}
	}

	/**
	 * Delivers what a fetch brought.
	 * @return whether it brought records and every one had been delivered at its
	 * acknowledgement
	 */
	private boolean dispatch(ConsumerRecords<String, ByteBuffer> records) {
		if (records.isEmpty()) {
			return false;
		}
		boolean delivered = false;
		synchronized (this.delivering) {
			for (TopicPartition partition : records.partitions()) {
				for (ConsumerRecord<String, ByteBuffer> record : records.records(partition)) {
					delivered |= this.order.fetched(partition, record.offset(),
							new Delivery(this.eventLog.route(record), () -> this.eventLog.event(record)));
				}
			}
		}
		return !delivered;
	}

	/** Waits the pause before the next fetch, unless a command comes. */
	private void rest() throws InterruptedException {
		if (this.pause.isZero()) {
			return;
		}
		this.resting = true;
		try {
			Runnable next = this.commands.poll(this.pause.toNanos(), TimeUnit.NANOSECONDS);
			if (next != null) {
				runCommand(next);
			}
		}
		finally {
			this.resting = false;
		}
	}

	/**
	 * A single publication of this node, acknowledged: on the producer's thread, before
	 * its publisher is answered, which nothing here may fail.
	 */
	private void written(ProducerRecord<String, byte[]> record, RecordMetadata metadata) {
		if (!metadata.hasOffset()) {
			return;
		}
		TopicPartition partition = new TopicPartition(metadata.topic(), metadata.partition());
		Delivery delivery = new Delivery(this.eventLog.route(record), () -> this.eventLog.event(record, metadata));
		boolean waits;
		try {
			synchronized (this.delivering) {
				waits = this.order.acknowledged(partition, metadata.offset(), delivery);
			}
		}
		catch (RuntimeException ex) {
			logger.error("Event tail: delivering " + partition + "@" + metadata.offset() + " failed", ex);
			return;
		}
		if (waits && this.resting) {
			// Only a fetch brings what it waits for: end the rest. Not a wakeup(), which
			// would break off a poll in progress.
			this.commands.add(NOTHING);
		}
	}

	/** Hands a record to its route's listeners, under the delivery lock. */
	private void deliver(Delivery delivery) {
		List<Listener> following = this.listeners.get(delivery.route());
		if (following == null) {
			return;
		}
		Event event = delivery.event().get();
		for (Listener listener : following) {
			try {
				listener.onEvent(event);
			}
			catch (RuntimeException ex) {
				logger.error("Listener of " + delivery.route() + " failed", ex);
			}
		}
	}

	@Override
	public String describe() {
		ConsumerThread current = this.thread;
		StringBuilder text = new StringBuilder("last poll ")
			.append(Duration.ofNanos(System.nanoTime() - this.polledAt).toMillis())
			.append(" ms ago, pending starts ")
			.append(this.pendingNames);
		if (current != null) {
			text.append(", thread ").append(current.thread().getState()).append(':');
			for (StackTraceElement frame : current.thread().getStackTrace()) {
				text.append("\n\tat ").append(frame);
			}
		}
		return text.toString();
	}

	@Override
	public void close() {
		ConsumerThread current;
		synchronized (this) {
			this.closed = true;
			current = this.thread;
		}
		if (current != null) {
			current.halt();
			// A thread with nothing assigned waits for a command, not in a poll.
			this.commands.add(() -> {
			});
			current.join();
		}
	}

	/** A record to hand to the listeners of its route, read only if someone listens. */
	private record Delivery(String route, Supplier<Event> event) {
	}

	/** One listener of one topic, from its follow request to its stop. */
	private static final class Following {

		/** The route of the topic's records. */
		final String name;

		/** The Kafka partitions read, by logical partition. */
		final List<TopicPartition> partitions;

		final Listener listener;

		final long since;

		volatile boolean stopped;

		boolean reported;

		String problem;

		Following(String name, List<TopicPartition> partitions, Listener listener, long since) {
			this.name = name;
			this.partitions = partitions;
			this.listener = listener;
			this.since = since;
		}

	}

}
