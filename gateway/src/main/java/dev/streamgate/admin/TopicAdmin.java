package dev.streamgate.admin;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

import org.springframework.stereotype.Component;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import dev.streamgate.core.egress.EgressGuard;
import dev.streamgate.core.event.CursorFormat;
import dev.streamgate.core.event.EventLogStatus;
import dev.streamgate.core.event.EventStorageProperties;
import dev.streamgate.core.oauth.ClientCredentials;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException.FieldError;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.storage.EventLog;
import dev.streamgate.core.storage.EventTypeCounts;
import dev.streamgate.core.storage.SnapshotStore;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.KafkaEndpoint;
import dev.streamgate.core.topic.KafkaEndpoints;
import dev.streamgate.core.topic.MergePatch;
import dev.streamgate.core.topic.Publisher;
import dev.streamgate.core.topic.Storage;
import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.topic.TopicJson;
import dev.streamgate.core.topic.TopicValidator;
import dev.streamgate.subscribe.webhook.WebhookAdmin;

/**
 * The topic admin operations: validation, the events topic and the stored definition kept
 * in step.
 */
@Component
@ConditionalOnRole(Role.ADMIN)
public class TopicAdmin {

	private final TopicStore store;

	private final EventLog eventLog;

	private final SnapshotStore snapshots;

	private final EventTypeCounts typeCounts;

	private final EgressGuard egress;

	private final KafkaEndpoints kafka;

	private final WebhookAdmin webhooks;

	private final Clock clock;

	private final EventStorageProperties storage;

	public TopicAdmin(TopicStore store, EventLog eventLog, SnapshotStore snapshots, EgressGuard egress,
			WebhookAdmin webhooks, EventStorageProperties storage, KafkaEndpoints kafka, EventTypeCounts typeCounts) {
		this.store = store;
		this.typeCounts = typeCounts;
		this.kafka = kafka;
		this.storage = storage;
		this.webhooks = webhooks;
		this.eventLog = eventLog;
		this.snapshots = snapshots;
		this.egress = egress;
		this.clock = Clock.systemUTC();
	}

	/**
	 * Creates a topic and its events topic.
	 * @param body the request document
	 * @return the stored topic
	 */
	public Mono<StoredTopic> create(JsonNode body) {
		Topic requested = TopicJson.fromRequest(body);
		String id = (requested.id() != null) ? requested.id() : generateId();
		Instant now = now();
		Topic topic = chooseStorage(requested.withId(id).withDefaults().withTimestamps(now, now));
		validate(topic);
		ensureReady();
		if (this.store.get(id).isPresent()) {
			throw duplicate(id);
		}
		// Creating the events topic is the lock: of two concurrent creates, Kafka lets
		// one win.
		return checkSources(null, topic).then(this.eventLog.create(topic))
			.onErrorResume(TopicAdmin::isLeftOver, (ex) -> recreateLeftOver(topic, ex))
			// A checkpoint left by a deleted topic of the same id must not seed this one
			// (checkpoints of shared topics carry their incarnation, and are ignored by
			// another).
			.then(Mono.defer(() -> topic.shared() ? Mono.empty() : this.snapshots.delete(id)))
			.then(Mono.defer(() -> this.store.save(topic)))
			.onErrorResume((ex) -> this.store.get(id).isPresent() ? Mono.error(duplicate(id)) : Mono.error(ex));
	}

	private static boolean isLeftOver(Throwable ex) {
		return ex instanceof StreamgateException problem && problem.problemType() == ProblemType.CONFLICT;
	}

	/**
	 * An events topic without a definition is left over from a create whose definition
	 * never got written: unless another node has just defined the topic, it is replaced.
	 */
	private Mono<Void> recreateLeftOver(Topic topic, Throwable ex) {
		if (this.store.get(topic.id()).isPresent()) {
			return Mono.error(duplicate(topic.id()));
		}
		return this.eventLog.delete(topic).then(this.eventLog.create(topic));
	}

	/**
	 * Applies an RFC 7386 merge patch to a topic.
	 * @param id the topic id
	 * @param patch the merge patch
	 * @param ifMatch the {@code If-Match} header, or {@code null}
	 * @return the stored topic
	 */
	public Mono<StoredTopic> update(String id, JsonNode patch, String ifMatch) {
		StoredTopic current = find(id);
		checkPrecondition(current, ifMatch);
		if (!patch.isObject()) {
			throw new StreamgateException(ProblemType.INVALID_TOPIC, "A merge patch of a topic must be a JSON object")
				.withErrors(List.of(new FieldError("", "must be a JSON object")));
		}
		if (patch.has("id") && !id.equals(patch.get("id").asString(""))) {
			throw new StreamgateException(ProblemType.INVALID_TOPIC, "/id cannot change")
				.withErrors(List.of(new FieldError("/id", "cannot change")));
		}
		ObjectNode base = TopicJson.toTree(current.topic());
		TopicJson.READ_ONLY.forEach(base::remove);
		Topic previous = current.topic();
		Topic topic = TopicJson.fromRequest(MergePatch.apply(base, TopicJson.withoutMaskedValues(patch)))
			.withId(id)
			.withDefaults()
			.withTimestamps(previous.createdAt(), now())
			.withSharedPartition(previous.sharedPartition());
		if (topic.payloadType() != previous.payloadType()) {
			throw new StreamgateException(ProblemType.PAYLOAD_TYPE_IMMUTABLE, "The payload type of '" + id + "' is "
					+ previous.payloadType() + " and cannot change; create another topic instead");
		}
		if (topic.storage() != previous.storage()) {
			throw new StreamgateException(ProblemType.INVALID_TOPIC,
					"/storage cannot change: '" + id + "' is " + storageOf(previous) + "; create another topic instead")
				.withErrors(List.of(new FieldError("/storage", "cannot change")));
		}
		validate(topic);
		checkSecretFollowsTokenUrl(previous, topic, patch);
		checkPasswordFollowsServers(previous, topic, patch);
		if (topic.partitions() < previous.partitions()) {
			throw new StreamgateException(ProblemType.CONFLICT,
					"Partitions can only grow: '" + id + "' has " + previous.partitions());
		}
		ensureReady();
		return checkSources(previous, topic).then(this.eventLog.update(previous, topic))
			.then(Mono.defer(() -> this.store.save(topic)));
	}

	/**
	 * Deletes a topic: its definition, then its events and its webhooks.
	 * @param id the topic id
	 * @param ifMatch the {@code If-Match} header, or {@code null}
	 * @return completes once deleted
	 */
	public Mono<Void> delete(String id, String ifMatch) {
		StoredTopic current = find(id);
		checkPrecondition(current, ifMatch);
		Topic topic = current.topic();
		ensureReady();
		return this.store.delete(id)
			.then(Mono.defer(() -> this.eventLog.delete(topic)))
			.then(Mono.defer(() -> this.snapshots.delete(id)))
			.then(Mono.defer(() -> this.typeCounts.forget(topic)))
			.then(Mono.defer(() -> this.webhooks.deleteAll(id)));
	}

	/**
	 * The event types published to a topic.
	 * @param id the topic id
	 * @return each type with its count, ordered by type
	 */
	public List<EventTypeCounts.TypeCount> types(String id) {
		return this.typeCounts.counts(find(id).topic());
	}

	/**
	 * One topic.
	 * @param id the topic id
	 * @return the topic
	 * @throws StreamgateException {@code topic-not-found}
	 */
	public StoredTopic find(String id) {
		return this.store.require(id);
	}

	/**
	 * A page of topics, ordered by id.
	 * @param page the page number, from 0
	 * @param size topics per page
	 * @return the page
	 */
	public TopicPage list(int page, int size) {
		ensureReady();
		List<StoredTopic> all = this.store.list();
		int from = (int) Math.min((long) page * size, all.size());
		int to = Math.min(from + size, all.size());
		return new TopicPage(all.subList(from, to), page, size, all.size());
	}

	/**
	 * Live figures of a topic.
	 * @param id the topic id
	 * @return the figures
	 */
	public Mono<EventLogStatus> status(String id) {
		return this.eventLog.status(find(id).topic());
	}

	/**
	 * The cursor just before the first event of a topic published at or after a time: a
	 * stream resumed from it ({@code lastEventId}) delivers what was published since.
	 * @param id the topic id
	 * @param time the time
	 * @return the cursor, as clients see cursors
	 */
	public Mono<String> cursorAt(String id, Instant time) {
		Topic topic = find(id).topic();
		return this.eventLog.at(topic, time).map(CursorFormat.of(topic)::format);
	}

	private Instant now() {
		return this.clock.instant().truncatedTo(ChronoUnit.MILLIS);
	}

	/**
	 * Shared storage unless the topic needs its own Kafka topic: more than one partition,
	 * or a retention longer than the shared log's; in shared storage, the partition the
	 * topic's id routes to (see {@link EventStorageProperties#sharedPartitionOf}).
	 */
	private Topic chooseStorage(Topic topic) {
		Storage chosen = topic.storage();
		if (chosen == null) {
			boolean fits = topic.partitions() == 1 && topic.retention().compareTo(this.storage.sharedRetention()) <= 0;
			chosen = fits ? Storage.SHARED : Storage.DEDICATED;
		}
		Topic stored = topic.withStorage(chosen);
		return stored.shared() ? stored.withSharedPartition(this.storage.sharedPartitionOf(topic.id())) : stored;
	}

	private static Storage storageOf(Topic topic) {
		return (topic.storage() != null) ? topic.storage() : Storage.DEDICATED;
	}

	private void validate(Topic topic) {
		List<FieldError> errors = new ArrayList<>(TopicValidator.validate(topic));
		if (topic.shared() && topic.partitions() != null && topic.partitions() > 1) {
			errors.add(new FieldError("/partitions",
					"a topic in shared storage has one partition; ask for storage dedicated to have more"));
		}
		if (topic.shared() && topic.retention() != null
				&& topic.retention().compareTo(this.storage.sharedRetention()) > 0) {
			errors.add(new FieldError("/retention",
					"a topic in shared storage keeps events at most " + this.storage.sharedRetention()
							+ " (streamgate.events.shared-retention); ask for storage dedicated to keep them longer"));
		}
		if (!errors.isEmpty()) {
			String detail = String.join("; ", errors.stream().map((e) -> e.pointer() + " " + e.detail()).toList());
			throw new StreamgateException(ProblemType.INVALID_TOPIC, detail).withErrors(errors);
		}
	}

	/**
	 * A poller must not be pointed inside the operator's network, nor fetch its tokens
	 * there; a Kafka source neither, and its topic must exist and take the credentials
	 * (checked when it is new or moves).
	 */
	private Mono<Void> checkSources(Topic previous, Topic topic) {
		KafkaEndpoint kafkaSource = topic.kafkaSource();
		if (kafkaSource != null) {
			if (previous != null && kafkaSource.equals(previous.kafkaSource())) {
				return Mono.empty();
			}
			return Flux.fromIterable(kafkaSource.servers())
				.concatMap((server) -> this.egress.require(URI.create("kafka://" + server),
						"/publisher/bootstrapServers", ProblemType.INVALID_TOPIC))
				.then(this.kafka.check(kafkaSource))
				.flatMap((problem) -> problem.<Mono<Void>>map((reason) -> Mono
					.error(new StreamgateException(ProblemType.INVALID_TOPIC, "/publisher " + reason)
						.withErrors(List.of(new FieldError("/publisher", reason)))))
					.orElse(Mono.empty()));
		}
		if (!(topic.publisher() instanceof Publisher.HttpPoller poller)) {
			return Mono.empty();
		}
		Mono<Void> source = this.egress.require(poller.url(), "/publisher/url", ProblemType.INVALID_TOPIC);
		ClientCredentials oauth2 = poller.oauth2();
		return (oauth2 != null)
				? source.then(
						this.egress.require(oauth2.tokenUrl(), "/publisher/oauth2/tokenUrl", ProblemType.INVALID_TOPIC))
				: source;
	}

	/**
	 * A stored client secret is only ever sent to the token URL it was given for: a patch
	 * that moves the token URL gives the secret again.
	 */
	private static void checkSecretFollowsTokenUrl(Topic previous, Topic topic, JsonNode patch) {
		ClientCredentials before = (previous.publisher() instanceof Publisher.HttpPoller poller) ? poller.oauth2()
				: null;
		ClientCredentials after = (topic.publisher() instanceof Publisher.HttpPoller poller) ? poller.oauth2() : null;
		if (before == null || after == null || before.tokenUrl().equals(after.tokenUrl())) {
			return;
		}
		String sent = patch.path("publisher").path("oauth2").path("clientSecret").asString(null);
		if (sent == null || TopicJson.MASK.equals(sent)) {
			String pointer = "/publisher/oauth2/clientSecret";
			String reason = "must be given again when tokenUrl changes: a stored secret goes only to its own token URL";
			throw new StreamgateException(ProblemType.INVALID_TOPIC, pointer + " " + reason)
				.withErrors(List.of(new FieldError(pointer, reason)));
		}
	}

	/**
	 * A stored Kafka password is only ever sent to the cluster it was given for: a patch
	 * that moves the bootstrap servers gives the password again.
	 */
	private static void checkPasswordFollowsServers(Topic previous, Topic topic, JsonNode patch) {
		KafkaEndpoint before = previous.kafkaSource();
		KafkaEndpoint after = topic.kafkaSource();
		if (before == null || after == null || before.security() == null || after.security() == null
				|| before.security().password() == null
				|| Objects.equals(before.bootstrapServers(), after.bootstrapServers())) {
			return;
		}
		String sent = patch.path("publisher").path("security").path("password").asString(null);
		if (sent == null || TopicJson.MASK.equals(sent)) {
			String pointer = "/publisher/security/password";
			String reason = "must be given again when bootstrapServers change: a stored password goes only to its "
					+ "own cluster";
			throw new StreamgateException(ProblemType.INVALID_TOPIC, pointer + " " + reason)
				.withErrors(List.of(new FieldError(pointer, reason)));
		}
	}

	private void ensureReady() {
		if (!this.store.isCaughtUp()) {
			throw new StreamgateException(ProblemType.NOT_READY,
					"This node is still reading the topic definitions; retry shortly")
				.withRetryAfter(Duration.ofSeconds(2));
		}
	}

	private static void checkPrecondition(StoredTopic current, String ifMatch) {
		if (ifMatch == null || ifMatch.isBlank() || ifMatch.trim().equals("*")) {
			return;
		}
		for (String tag : ifMatch.split(",")) {
			if (tag.trim().equals(current.etag())) {
				return;
			}
		}
		throw new StreamgateException(ProblemType.PRECONDITION_FAILED, "If-Match " + ifMatch
				+ " does not match the current version " + current.etag() + " of '" + current.id() + "'");
	}

	private static StreamgateException duplicate(String id) {
		return new StreamgateException(ProblemType.TOPIC_EXISTS, "A topic with id '" + id + "' already exists");
	}

	private static String generateId() {
		return UUID.randomUUID().toString().replace("-", "").substring(0, 16);
	}

	/**
	 * A page of the topic list.
	 *
	 * @param items the topics of this page
	 * @param page the page number
	 * @param size the page size
	 * @param total how many topics there are
	 */
	public record TopicPage(List<StoredTopic> items, int page, int size, int total) {
	}

}
