package dev.streamgate.core.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.EventTail;
import dev.streamgate.core.topic.Topic;

/**
 * One Kafka consumer per node reading the new events of every followed topic.
 * <p>
 * It assigns partitions itself (no consumer group: every node needs every partition of
 * the topics its clients watch). One thread owns the consumer; follow and unfollow
 * requests are queued to it, so a listener sees its start position and then every later
 * event, with no gap between the two.
 */
final class KafkaEventTail implements EventTail, AutoCloseable {

	private static final Log logger = LogFactory.getLog(KafkaEventTail.class);

	private static final Duration POLL = Duration.ofMillis(100);

	private final KafkaClients clients;

	private final KafkaEventLog eventLog;

	private final LinkedBlockingQueue<Runnable> commands = new LinkedBlockingQueue<>();

	/** By Kafka topic: an SSE hub and a webhook feed of the same topic both listen. */
	private final Map<String, List<Listener>> listeners = new HashMap<>();

	private volatile KafkaConsumer<String, byte[]> consumer;

	private volatile boolean running = true;

	private Thread thread;

	KafkaEventTail(KafkaClients clients, KafkaEventLog eventLog) {
		this.clients = clients;
		this.eventLog = eventLog;
	}

	@Override
	public synchronized AutoCloseable follow(Topic topic, Listener listener) {
		if (this.thread == null) {
			this.thread = new Thread(this::run, "streamgate-event-tail");
			this.thread.setDaemon(true);
			this.thread.start();
		}
		String name = this.eventLog.name(topic.id());
		List<TopicPartition> partitions = IntStream.range(0, topic.partitions())
			.mapToObj((p) -> new TopicPartition(name, p))
			.toList();
		submit(() -> start(name, partitions, listener));
		return () -> submit(() -> stop(name, listener));
	}

	private void submit(Runnable command) {
		this.commands.add(command);
		KafkaConsumer<String, byte[]> current = this.consumer;
		if (current != null) {
			current.wakeup();
		}
	}

	private void start(String name, List<TopicPartition> partitions, Listener listener) {
		List<Listener> following = this.listeners.get(name);
		if (following == null) {
			Set<TopicPartition> assignment = new HashSet<>(this.consumer.assignment());
			assignment.addAll(partitions);
			this.consumer.assign(assignment);
			this.consumer.seekToEnd(partitions);
		}
		// A topic already followed is not sought again: its other listeners would miss
		// the events between their position and the end. The new listener starts where
		// the consumer stands, which the others have seen.
		long[] last = new long[partitions.size()];
		for (TopicPartition partition : partitions) {
			last[partition.partition()] = this.consumer.position(partition) - 1;
		}
		this.listeners.computeIfAbsent(name, (key) -> new ArrayList<>()).add(listener);
		listener.onStart(Cursor.of(last));
	}

	private void stop(String name, Listener listener) {
		List<Listener> following = this.listeners.get(name);
		if (following == null || !following.remove(listener) || !following.isEmpty()) {
			return;
		}
		this.listeners.remove(name);
		List<TopicPartition> assignment = new ArrayList<>(this.consumer.assignment());
		assignment.removeIf((partition) -> partition.topic().equals(name));
		this.consumer.assign(assignment);
	}

	private void run() {
		try (KafkaConsumer<String, byte[]> kafkaConsumer = new KafkaConsumer<>(this.clients.consumer("tail"),
				new StringDeserializer(), new ByteArrayDeserializer())) {
			this.consumer = kafkaConsumer;
			while (this.running) {
				try {
					runCommands();
					if (kafkaConsumer.assignment().isEmpty()) {
						Runnable next = this.commands.poll(1, TimeUnit.SECONDS);
						if (next != null) {
							runToTheEnd(next);
						}
						continue;
					}
					for (ConsumerRecord<String, byte[]> record : kafkaConsumer.poll(POLL)) {
						dispatch(record);
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
					if (this.running) {
						logger.warn("Event tail: " + ex.getMessage());
					}
				}
			}
		}
	}

	private void runCommands() {
		Runnable command;
		while ((command = this.commands.poll()) != null) {
			runToTheEnd(command);
		}
	}

	/**
	 * Runs a command to its end: again when a wakeup meant for poll() interrupts it, and
	 * again after a pause while Kafka does not answer. Commands are idempotent, and no
	 * event is dispatched between two runs.
	 */
	private void runToTheEnd(Runnable command) {
		while (this.running) {
			try {
				command.run();
				return;
			}
			catch (WakeupException ex) {
				// run it again
			}
			catch (KafkaException ex) {
				logger.warn("Event tail: " + ex.getMessage() + "; retrying");
				try {
					Thread.sleep(1000);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
	}

	private void dispatch(ConsumerRecord<String, byte[]> record) {
		List<Listener> following = this.listeners.get(record.topic());
		if (following == null) {
			return;
		}
		for (Listener listener : following) {
			try {
				listener.onEvent(KafkaEventLog.toEvent(record));
			}
			catch (RuntimeException ex) {
				logger.error("Listener of " + record.topic() + " failed", ex);
			}
		}
	}

	@Override
	public void close() {
		this.running = false;
		submit(() -> {
		});
		Thread current = this.thread;
		if (current != null) {
			try {
				current.join(Duration.ofSeconds(10).toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
