package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import dev.streamgate.core.storage.Leases;

/**
 * Leases through Kafka's group membership: each group is a consumer group subscribed to
 * the data-less {@code leases} topic, and a member owns the keys that hash to the
 * partitions assigned to it. Kafka's coordinator does the failure detection and the
 * handing over; the cooperative sticky assignor moves only what must move, and a member
 * gives up a partition (its listener returns) before it is assigned elsewhere.
 */
final class KafkaLeases implements Leases {

	private static final Log logger = LogFactory.getLog(KafkaLeases.class);

	/**
	 * How long a member's poll waits. Its own requests' answers end a poll early; a
	 * rebalance announced in a heartbeat's answer is joined at the next poll, so this
	 * bounds what it adds to a hand-over. An idle node polls each group this often.
	 */
	private static final Duration POLL = Duration.ofMillis(500);

	private static final int HEARTBEAT_MS = 500;

	private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(3);

	private final KafkaClients clients;

	private final String topic;

	KafkaLeases(KafkaClients clients) {
		this.clients = clients;
		this.topic = clients.properties().topicPrefix() + "leases";
	}

	@Override
	public Membership join(String group, Listener listener) {
		KafkaMembership membership = new KafkaMembership(group, listener);
		membership.start();
		return membership;
	}

	private final class KafkaMembership implements Membership, ConsumerRebalanceListener {

		private final String group;

		private final Listener listener;

		private final ConsumerThread thread;

		private volatile Set<Integer> owned = Set.of();

		private volatile int partitions = 1;

		private volatile KafkaConsumer<byte[], byte[]> consumer;

		KafkaMembership(String group, Listener listener) {
			this.group = group;
			this.listener = listener;
			this.thread = new ConsumerThread("streamgate-leases-" + group, this::run);
		}

		void start() {
			this.thread.start();
		}

		@Override
		public boolean owns(String key) {
			Set<Integer> current = this.owned;
			if (current.isEmpty()) {
				return false;
			}
			int partition = KafkaClients.partitionOf(key, this.partitions);
			return current.contains(partition);
		}

		private void run() {
			Map<String, Object> config = KafkaLeases.this.clients.consumer("leases-" + this.group);
			config.put(ConsumerConfig.GROUP_ID_CONFIG,
					KafkaLeases.this.clients.properties().topicPrefix() + this.group);
			int sessionMs = (int) KafkaLeases.this.clients.properties().leaseSessionTimeout().toMillis();
			config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, sessionMs);
			// A member learns of a rebalance (another member left or joined) at its next
			// heartbeat: twice a second, so that leases change hands within a second or
			// two of a clean shutdown; at most a third of the session, as Kafka advises.
			config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Math.min(HEARTBEAT_MS, sessionMs / 3));
			config.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
					List.of(CooperativeStickyAssignor.class.getName()));
			while (this.thread.running()) {
				KafkaConsumer<byte[], byte[]> member = this.thread
					.polls(new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer()));
				this.consumer = member;
				try {
					this.partitions = partitionCount(member);
					member.subscribe(List.of(KafkaLeases.this.topic), this);
					while (this.thread.running()) {
						// The topic holds no data: polling only keeps the membership
						// alive.
						member.poll(POLL);
					}
				}
				catch (WakeupException ex) {
					// closing
				}
				catch (RuntimeException ex) {
					if (this.thread.running()) {
						logger.warn("Lease group " + this.group + ": " + ex.getMessage() + "; rejoining");
						release(this.owned);
						pause();
					}
				}
				finally {
					// Leave the group so that the others take over at once, but do not
					// hold
					// up a shutdown for a rebalance in progress.
					try {
						member.close(CloseOptions.timeout(CLOSE_TIMEOUT));
					}
					catch (RuntimeException ex) {
						logger.debug("Lease group " + this.group + " left uncleanly: " + ex.getMessage());
					}
				}
			}
			release(this.owned);
		}

		@Override
		public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
			if (assigned.isEmpty()) {
				return;
			}
			// Nothing is read from the leases topic: paused, a member sends no fetch, and
			// its polls only keep the membership alive.
			this.consumer.pause(assigned);
			Set<Integer> next = new HashSet<>(this.owned);
			assigned.forEach((partition) -> next.add(partition.partition()));
			change(next);
		}

		@Override
		public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
			Set<Integer> gone = new HashSet<>();
			revoked.forEach((partition) -> gone.add(partition.partition()));
			release(gone);
		}

		@Override
		public void onPartitionsLost(Collection<TopicPartition> lost) {
			onPartitionsRevoked(lost);
		}

		/**
		 * The partitions of the leases topic. A client that has only just learnt of the
		 * topic may see none yet (a node started as the topic was created): asked again
		 * rather than kept as zero, which no key could be hashed over.
		 */
		private int partitionCount(KafkaConsumer<byte[], byte[]> member) {
			for (int attempt = 0;; attempt++) {
				int count = member.partitionsFor(KafkaLeases.this.topic).size();
				if (count > 0 || attempt >= 50) {
					return Math.max(1, count);
				}
				pause(Duration.ofMillis(100));
			}
		}

		private void release(Set<Integer> gone) {
			if (gone.isEmpty()) {
				return;
			}
			Set<Integer> next = new HashSet<>(this.owned);
			next.removeAll(gone);
			change(next);
		}

		private void change(Set<Integer> next) {
			if (next.equals(this.owned)) {
				return;
			}
			this.owned = Set.copyOf(next);
			logger.info("Lease group " + this.group + ": this node owns partitions " + new java.util.TreeSet<>(next)
					+ " of " + this.partitions);
			try {
				this.listener.onChange();
			}
			catch (RuntimeException ex) {
				logger.error("Lease group " + this.group + " listener failed", ex);
			}
		}

		private void pause() {
			pause(Duration.ofSeconds(1));
		}

		private void pause(Duration duration) {
			try {
				Thread.sleep(duration.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				this.thread.halt();
			}
		}

		@Override
		public void close() {
			this.thread.stop();
		}

	}

}
