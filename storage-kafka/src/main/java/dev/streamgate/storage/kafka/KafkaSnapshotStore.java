package dev.streamgate.storage.kafka;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonStructure;
import reactor.core.publisher.Mono;

import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.storage.SnapshotStore;

/**
 * Snapshot checkpoints in the compacted {@code snapshots} Kafka topic.
 * <p>
 * Record format: key = topic id, value = {@code {"offset": <last applied offset>,
 * "document": <the document>}}, tombstone = forgotten. Every node keeps the newest
 * checkpoint of each topic in memory as the record's bytes, parsed when asked for: a
 * checkpoint is read rarely (a reader or publisher starting on the topic) but kept for up
 * to {@code checkpoint-interval}, and a parsed document of 50 KB is thousands of objects
 * that each young collection would copy until they are old, where one array is one copy.
 */
final class KafkaSnapshotStore implements SnapshotStore, AutoCloseable {

	private final KafkaConfigLog log;

	private final Map<String, Stored> checkpoints = new ConcurrentHashMap<>();

	KafkaSnapshotStore(KafkaClients clients, KafkaWriter writer) {
		this.log = new KafkaConfigLog(clients.properties().topicPrefix() + "snapshots", clients, writer, this::apply);
	}

	void start() {
		this.log.start();
	}

	private void apply(KafkaConfigLog.Entry entry) {
		if (entry.value() == null) {
			this.checkpoints.remove(entry.key());
			return;
		}
		Stored stored = Stored.of(entry.value());
		// Of one topic the furthest checkpoint wins (nodes may write out of order); a
		// checkpoint of another incarnation replaces the previous one.
		this.checkpoints.merge(entry.key(), stored, (current, next) -> (next.offset() >= current.offset()
				|| !Objects.equals(next.incarnation(), current.incarnation())) ? next : current);
	}

	@Override
	public Optional<Checkpoint> get(String topicId) {
		return Optional.ofNullable(this.checkpoints.get(topicId)).map(Stored::checkpoint);
	}

	@Override
	public boolean has(String topicId) {
		return this.checkpoints.containsKey(topicId);
	}

	@Override
	public Mono<Void> save(String topicId, Checkpoint checkpoint) {
		JsonObjectBuilder value = JsonPatches.json()
			.createObjectBuilder()
			.add("offset", checkpoint.offset())
			.add("document", checkpoint.document());
		if (checkpoint.incarnation() != null) {
			value.add("incarnation", checkpoint.incarnation());
		}
		return this.log.write(topicId, JsonPatches.write(value.build())).then();
	}

	@Override
	public Mono<Void> delete(String topicId) {
		return this.log.write(topicId, null).then();
	}

	@Override
	public void close() {
		this.log.close();
	}

	/**
	 * A checkpoint as its record: what choosing the newest needs, and the bytes.
	 */
	private record Stored(long offset, String incarnation, byte[] value) {

		static Stored of(byte[] value) {
			JsonObject checkpoint = JsonPatches.readStored(value).asJsonObject();
			return new Stored(checkpoint.getJsonNumber("offset").longValueExact(),
					checkpoint.getString("incarnation", null), value);
		}

		Checkpoint checkpoint() {
			JsonObject checkpoint = JsonPatches.readStored(this.value).asJsonObject();
			return new Checkpoint(this.offset, (JsonStructure) checkpoint.get("document"), this.incarnation);
		}

	}

}
