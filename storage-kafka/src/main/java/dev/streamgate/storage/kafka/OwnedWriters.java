package dev.streamgate.storage.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.streamgate.core.event.WriterFencedException;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.topic.Topic;

/**
 * One writer per topic across the cluster, by Kafka's transactional fencing: every node
 * writes a topic with a transactional producer of the same transactional id, the topic's
 * own. A node that claims the topic initialises its producer, which fences the producer
 * of whichever node claimed it before (its next commit fails) and aborts that node's
 * unfinished transaction. So while a node's producer is not fenced, no other node has
 * written the topic since its claim, and a document it caught up with after the claim is
 * still the topic's current one: a conditional append, which Kafka has no other way to
 * make. Snapshot topics published through several ingest nodes need it, each publication
 * a patch from the previous document.
 * <p>
 * A node keeps the writers of the topics it wrote last (a producer each); one evicted or
 * fenced is claimed again at the next write.
 */
final class OwnedWriters implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(OwnedWriters.class);

	/** Topics a node keeps a writer for at once. */
	private static final int KEPT = 256;

	private final KafkaClients clients;

	private final Cache<String, Writer> writers = Caffeine.newBuilder()
		.maximumSize(KEPT)
		.<String, Writer>removalListener((id, writer, cause) -> {
			if (writer != null) {
				writer.close();
			}
		})
		.build();

	OwnedWriters(KafkaClients clients) {
		this.clients = clients;
	}

	/**
	 * Claims a topic's writer for this node, unless it holds it already.
	 * @param topic the topic
	 * @return true when the claim is new: another node may have written the topic since
	 * this node last did
	 */
	Mono<Boolean> claim(Topic topic) {
		return Mono.fromCallable(() -> {
			Writer held = this.writers.getIfPresent(key(topic));
			if (held != null && !held.fenced) {
				return false;
			}
			Writer fresh = new Writer(
					new KafkaProducer<>(config(topic), new StringSerializer(), new ByteArraySerializer()));
			try {
				fresh.producer.initTransactions();
			}
			catch (RuntimeException ex) {
				fresh.close();
				throw StreamgateException.kafkaUnavailable(ex);
			}
			this.writers.put(key(topic), fresh);
			return true;
		}).subscribeOn(Schedulers.boundedElastic());
	}

	/**
	 * Appends records in one transaction of the topic's writer, all or none.
	 * @param topic the topic, claimed by this node
	 * @param records the records
	 * @param written told of each record once acknowledged
	 * @return the metadata of each record
	 * @throws WriterFencedException (in the Mono) when another node claimed the topic
	 * since this node did
	 */
	Mono<List<RecordMetadata>> append(Topic topic, List<ProducerRecord<String, byte[]>> records,
			BiConsumer<ProducerRecord<String, byte[]>, RecordMetadata> written) {
		return Mono.fromCallable(() -> {
			Writer writer = this.writers.getIfPresent(key(topic));
			if (writer == null || writer.fenced) {
				throw new WriterFencedException(topic.id(), null);
			}
			synchronized (writer) {
				return writer.write(topic, records, written, this.clients.properties().writeTimeout().toMillis());
			}
		}).subscribeOn(Schedulers.boundedElastic());
	}

	/**
	 * Forgets a deleted topic's writer.
	 * @param topic the topic
	 */
	void forget(Topic topic) {
		this.writers.invalidate(key(topic));
	}

	@Override
	public void close() {
		this.writers.invalidateAll();
		this.writers.cleanUp();
	}

	private Map<String, Object> config(Topic topic) {
		Map<String, Object> config = this.clients.producer("owned-" + topic.id());
		config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG,
				this.clients.properties().topicPrefix() + "owned-" + topic.id() + "-" + topic.incarnation());
		return config;
	}

	/** A re-created topic is another topic: its writer is another. */
	private static String key(Topic topic) {
		return topic.id() + "-" + topic.incarnation();
	}

	/** One topic's transactional producer on this node. */
	private static final class Writer {

		private final KafkaProducer<String, byte[]> producer;

		private volatile boolean fenced;

		Writer(KafkaProducer<String, byte[]> producer) {
			this.producer = producer;
		}

		List<RecordMetadata> write(Topic topic, List<ProducerRecord<String, byte[]>> records,
				BiConsumer<ProducerRecord<String, byte[]>, RecordMetadata> written, long timeoutMs) {
			try {
				this.producer.beginTransaction();
				List<Future<RecordMetadata>> sent = new ArrayList<>(records.size());
				records.forEach((record) -> sent.add(this.producer.send(record)));
				this.producer.commitTransaction();
				List<RecordMetadata> metadata = new ArrayList<>(sent.size());
				for (int i = 0; i < sent.size(); i++) {
					RecordMetadata acknowledged = sent.get(i).get(timeoutMs, TimeUnit.MILLISECONDS);
					metadata.add(acknowledged);
					written.accept(records.get(i), acknowledged);
				}
				return metadata;
			}
			catch (ProducerFencedException | InvalidProducerEpochException ex) {
				this.fenced = true;
				throw new WriterFencedException(topic.id(), ex);
			}
			catch (KafkaException ex) {
				// Failed otherwise: a broker gone, or a commit that met another node's
				// claim half-way (the broker then answers an unknown error). The writer
				// is
				// given up and the publication made again after a new claim: a claim that
				// cannot be made while Kafka is unreachable answers 503, and one that is
				// made catches up with whatever this transaction left, so a document is
				// never patched twice.
				abortOrGiveUp();
				this.fenced = true;
				throw new WriterFencedException(topic.id(), ex);
			}
			catch (ExecutionException | java.util.concurrent.TimeoutException ex) {
				abortOrGiveUp();
				throw StreamgateException.kafkaUnavailable(ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				abortOrGiveUp();
				throw StreamgateException.kafkaUnavailable(ex);
			}
		}

		private void abortOrGiveUp() {
			try {
				this.producer.abortTransaction();
			}
			catch (RuntimeException ex) {
				logger.debug("A topic writer could not abort its transaction; it is claimed again at the next write",
						ex);
				this.fenced = true;
			}
		}

		void close() {
			try {
				this.producer.close(java.time.Duration.ZERO);
			}
			catch (RuntimeException ex) {
				logger.debug("Closing a topic writer failed", ex);
			}
		}

	}

}
