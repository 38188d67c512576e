package dev.streamgate.core.topic;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;
import tools.jackson.databind.JsonNode;

/**
 * A topic definition as the admin API and the {@code topics} config topic hold it.
 * <p>
 * Fields a client leaves out are {@code null} until {@link #withDefaults()} fills them; a
 * stored topic always has every field. {@code createdAt}, {@code updatedAt} and
 * {@code sharedPartition} are read-only: the registry sets them.
 *
 * @param id the topic id
 * @param name a display name
 * @param payloadType what one publication is
 * @param publisher where publications come from
 * @param subscriptionModes the modes subscribers may ask for
 * @param defaultSubscriptionMode the mode of subscribers that ask for none
 * @param partitions partitions of the events topic
 * @param retention how long events are kept, and so how far back a client can resume
 * @param storage where the events live; a topic stored before storage was chosen has none
 * and is dedicated
 * @param isPublic whether anyone may subscribe without a token
 * @param createdAt when the topic was created
 * @param updatedAt when the topic last changed
 * @param schema the JSON Schema publications must match, or null
 * @param sharedPartition in shared storage, the partition of the shared log that holds
 * the events; null for dedicated storage, and for a shared topic stored before partitions
 * were chosen at creation (its partition is then the Kafka producer's hash of its id)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Topic(
		@Schema(description = "generated when absent", pattern = "^[a-z0-9][a-z0-9._-]{0,62}$",
				example = "prices") String id,
		@Schema(description = "display name; defaults to the id", maxLength = 200) String name,
		@Schema(description = "cannot change after creation; default event") PayloadType payloadType,
		@Schema(description = "default http-post") Publisher publisher,
		@Schema(description = "default: every mode valid for the payload type") List<SubscriptionMode> subscriptionModes,
		SubscriptionMode defaultSubscriptionMode,
		@Schema(description = "more than 1 only for event topics; only grows", minimum = "1", maximum = "128",
				defaultValue = "1") Integer partitions,
		@Schema(type = "string", format = "duration", description = "ISO-8601, PT1M to P3650D",
				example = "P7D") Duration retention,
		@Schema(description = "shared (default when partitions is 1 and retention fits the shared log's) or dedicated; cannot change after creation") Storage storage,
		@Schema(description = "anyone may subscribe without a token",
				defaultValue = "false") @JsonProperty("public") Boolean isPublic,
		@Schema(accessMode = Schema.AccessMode.READ_ONLY) Instant createdAt,
		@Schema(accessMode = Schema.AccessMode.READ_ONLY) Instant updatedAt,
		@Schema(type = "object",
				description = "a JSON Schema (2020-12 unless it names another draft in $schema) that each "
						+ "publication must match: each event, or each whole document of a snapshot topic",
				example = "{\"type\": \"object\", \"required\": [\"amount\"]}") JsonNode schema,
		@Schema(accessMode = Schema.AccessMode.READ_ONLY,
				description = "shared storage: the partition of the shared event log that holds the events, "
						+ "chosen at creation; a proxy in front of several streaming nodes that sends the "
						+ "topics of one partition to one node lets each node read only its partitions "
						+ "(docs/cluster.md)") Integer sharedPartition) {

	public Topic {
		// "schema": null is no schema.
		schema = (schema != null && schema.isNull()) ? null : schema;
	}

	/**
	 * A topic whose shared partition is not chosen yet.
	 * @param id the id
	 * @param name the display name
	 * @param payloadType events or documents
	 * @param publisher what feeds it
	 * @param subscriptionModes the modes subscribers may ask for
	 * @param defaultSubscriptionMode the mode of those who ask for none
	 * @param partitions its partitions
	 * @param retention how long events are kept
	 * @param storage shared or dedicated
	 * @param isPublic whether anyone may subscribe
	 * @param createdAt when it was created
	 * @param updatedAt when it last changed
	 * @param schema the payload schema, or null
	 */
	public Topic(String id, String name, PayloadType payloadType, Publisher publisher,
			List<SubscriptionMode> subscriptionModes, SubscriptionMode defaultSubscriptionMode, Integer partitions,
			Duration retention, Storage storage, Boolean isPublic, Instant createdAt, Instant updatedAt,
			JsonNode schema) {
		this(id, name, payloadType, publisher, subscriptionModes, defaultSubscriptionMode, partitions, retention,
				storage, isPublic, createdAt, updatedAt, schema, null);
	}

	/**
	 * A topic without payload schema.
	 * @param id the id
	 * @param name the display name
	 * @param payloadType events or documents
	 * @param publisher what feeds it
	 * @param subscriptionModes the modes subscribers may ask for
	 * @param defaultSubscriptionMode the mode of those who ask for none
	 * @param partitions its partitions
	 * @param retention how long events are kept
	 * @param storage shared or dedicated
	 * @param isPublic whether anyone may subscribe
	 * @param createdAt when it was created
	 * @param updatedAt when it last changed
	 */
	public Topic(String id, String name, PayloadType payloadType, Publisher publisher,
			List<SubscriptionMode> subscriptionModes, SubscriptionMode defaultSubscriptionMode, Integer partitions,
			Duration retention, Storage storage, Boolean isPublic, Instant createdAt, Instant updatedAt) {
		this(id, name, payloadType, publisher, subscriptionModes, defaultSubscriptionMode, partitions, retention,
				storage, isPublic, createdAt, updatedAt, null);
	}

	/** Retention of topics that name none. */
	public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

	/**
	 * This topic with every absent field set to its default.
	 * @return a complete topic
	 */
	public Topic withDefaults() {
		PayloadType type = (this.payloadType != null) ? this.payloadType : PayloadType.EVENT;
		// Not List.copyOf: a client may send null modes, which validation then reports.
		List<SubscriptionMode> modes = (this.subscriptionModes != null)
				? Collections.unmodifiableList(new ArrayList<>(this.subscriptionModes)) : type.modes();
		SubscriptionMode defaultMode = this.defaultSubscriptionMode;
		if (defaultMode == null && !modes.isEmpty()) {
			defaultMode = modes.get(0);
		}
		return new Topic(this.id, (this.name != null) ? this.name : this.id, type,
				(this.publisher != null) ? this.publisher.withDefaults() : Publisher.HTTP_POST, modes, defaultMode,
				(this.partitions != null) ? this.partitions : 1,
				(this.retention != null) ? this.retention : DEFAULT_RETENTION, this.storage,
				(this.isPublic != null) ? this.isPublic : Boolean.FALSE, this.createdAt, this.updatedAt, this.schema,
				this.sharedPartition);
	}

	/**
	 * This topic with the given id.
	 * @param newId the id
	 * @return a copy
	 */
	public Topic withId(String newId) {
		return new Topic(newId, this.name, this.payloadType, this.publisher, this.subscriptionModes,
				this.defaultSubscriptionMode, this.partitions, this.retention, this.storage, this.isPublic,
				this.createdAt, this.updatedAt, this.schema, this.sharedPartition);
	}

	/**
	 * The Kafka topic this topic mirrors.
	 * @return the source of a {@code kafka} publisher, {@code null} for other publishers
	 */
	@JsonIgnore
	public KafkaEndpoint kafkaSource() {
		return (this.publisher instanceof Publisher.Kafka kafka) ? kafka.endpoint() : null;
	}

	/**
	 * This topic with another publisher, defaults filled in.
	 * @param newPublisher the publisher
	 * @return a copy
	 */
	public Topic withPublisher(Publisher newPublisher) {
		return new Topic(this.id, this.name, this.payloadType, newPublisher.withDefaults(), this.subscriptionModes,
				this.defaultSubscriptionMode, this.partitions, this.retention, this.storage, this.isPublic,
				this.createdAt, this.updatedAt, this.schema, this.sharedPartition);
	}

	/**
	 * This topic stored as given.
	 * @param newStorage the storage
	 * @return a copy
	 */
	public Topic withStorage(Storage newStorage) {
		return new Topic(this.id, this.name, this.payloadType, this.publisher, this.subscriptionModes,
				this.defaultSubscriptionMode, this.partitions, this.retention, newStorage, this.isPublic,
				this.createdAt, this.updatedAt, this.schema, this.sharedPartition);
	}

	/**
	 * This topic in shared storage, in the given partition of the shared log.
	 * @param partition the partition
	 * @return a copy
	 */
	public Topic withSharedPartition(Integer partition) {
		return new Topic(this.id, this.name, this.payloadType, this.publisher, this.subscriptionModes,
				this.defaultSubscriptionMode, this.partitions, this.retention, this.storage, this.isPublic,
				this.createdAt, this.updatedAt, this.schema, partition);
	}

	/**
	 * Whether the events live in the shared log.
	 * @return true for shared storage
	 */
	public boolean shared() {
		return this.storage == Storage.SHARED;
	}

	/**
	 * This topic with the given timestamps.
	 * @param created creation time
	 * @param updated last change time
	 * @return a copy
	 */
	public Topic withTimestamps(Instant created, Instant updated) {
		return new Topic(this.id, this.name, this.payloadType, this.publisher, this.subscriptionModes,
				this.defaultSubscriptionMode, this.partitions, this.retention, this.storage, this.isPublic, created,
				updated, this.schema, this.sharedPartition);
	}

	/**
	 * Tells this topic from an earlier one of the same id, deleted since: its creation
	 * time in base 36. It is part of every cursor and webhook-id.
	 * @return the incarnation
	 */
	public String incarnation() {
		return (this.createdAt != null) ? Long.toString(this.createdAt.toEpochMilli(), Character.MAX_RADIX) : "0";
	}

}
