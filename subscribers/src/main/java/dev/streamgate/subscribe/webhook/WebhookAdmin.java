package dev.streamgate.subscribe.webhook;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

import org.springframework.stereotype.Component;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import dev.streamgate.core.egress.EgressGuard;
import dev.streamgate.core.egress.EgressUrls;
import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.CursorFormat;
import dev.streamgate.core.oauth.ClientCredentials;
import dev.streamgate.core.problem.JsonErrors;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException.FieldError;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.storage.AttemptLog;
import dev.streamgate.core.storage.DeliveryStates;
import dev.streamgate.core.storage.EventLog;
import dev.streamgate.core.storage.KafkaSink;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.storage.WebhookStore;
import dev.streamgate.core.topic.KafkaEndpoint;
import dev.streamgate.core.topic.MergePatch;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.topic.TopicJson;
import dev.streamgate.core.web.IsoTimes;
import dev.streamgate.core.webhook.Attempt;
import dev.streamgate.core.webhook.DeliveryState;
import dev.streamgate.core.webhook.Webhook;
import dev.streamgate.subscribe.follow.SubscribeParameters;

/**
 * The webhook admin operations: validation, registration with its starting cursor, status
 * changes, replays, test pings and the attempts log.
 */
@Component
@ConditionalOnRole(Role.ADMIN)
public class WebhookAdmin {

	private static final Set<String> FIELDS = Set.of("url", "mode", "headers", "secret", "description", "oauth2",
			"kafka", "types", "filter", "pointer", "cloudEvents");

	private static final Set<String> PATCHABLE = Set.of("url", "headers", "description", "status", "oauth2", "kafka",
			"types", "filter", "cloudEvents");

	private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}");

	private static final Set<String> RESERVED_HEADERS = Set.of("host", "content-type", "content-length",
			"content-encoding", "transfer-encoding", "connection", "upgrade", "te", "trailer", "keep-alive",
			"proxy-connection", "user-agent", "expect");

	private static final int MAX_HEADERS = 20;

	private static final int MAX_HEADER_VALUE = 4096;

	private static final int MAX_URL = 2048;

	private static final int MAX_DESCRIPTION = 500;

	private final TopicStore topics;

	private final WebhookStore webhooks;

	private final DeliveryStates states;

	private final AttemptLog attempts;

	private final EventLog eventLog;

	private final EgressGuard egress;

	private final WebhookSender sender;

	private final WebhookProperties properties;

	private final KafkaSink kafkaSink;

	private final Clock clock = Clock.systemUTC();

	public WebhookAdmin(TopicStore topics, WebhookStore webhooks, DeliveryStates states, AttemptLog attempts,
			EventLog eventLog, EgressGuard egress, WebhookSender sender, WebhookProperties properties,
			KafkaSink kafkaSink) {
		this.kafkaSink = kafkaSink;
		this.topics = topics;
		this.webhooks = webhooks;
		this.states = states;
		this.attempts = attempts;
		this.eventLog = eventLog;
		this.egress = egress;
		this.sender = sender;
		this.properties = properties;
	}

	/**
	 * Registers a webhook; its deliveries start with the events published after now.
	 * @param topicId the topic
	 * @param body the request document
	 * @return the stored webhook
	 */
	public Mono<Webhook> create(String topicId, JsonNode body) {
		Topic topic = this.topics.require(topicId).topic();
		ensureReady();
		object(body, FIELDS);
		List<FieldError> errors = new ArrayList<>();
		KafkaEndpoint kafka = kafka(body.get("kafka"), null, errors);
		String url = url(body.get("url"), kafka == null && !body.has("kafka"), errors);
		if (kafka != null && (url != null || body.has("oauth2"))) {
			errors.add(new FieldError("/kafka",
					"delivers into Kafka instead of to a url: give one of url and kafka " + "(oauth2 is for url)"));
		}
		SubscriptionMode mode = mode(topic, body.get("mode"), errors);
		Map<String, String> headers = headers(body.get("headers"), errors);
		String secret = secret(body.get("secret"), errors);
		String description = description(body.get("description"), errors);
		ClientCredentials oauth2 = oauth2(body.get("oauth2"), null, errors);
		List<String> types = types(body.get("types"), errors);
		String filter = filter(body.get("filter"), errors);
		String pointer = pointer(body.get("pointer"), errors);
		String cloudEvents = cloudEvents(body.get("cloudEvents"), errors);
		select(topic, types, filter, pointer, errors);
		refuseIfAny(errors);
		if (this.webhooks.list(topicId).size() >= this.properties.maxPerTopic()) {
			throw new StreamgateException(ProblemType.TOO_MANY_REQUESTS, "Topic '" + topicId + "' has "
					+ this.properties.maxPerTopic() + " webhooks, the most allowed (streamgate.webhook.max-per-topic)");
		}
		Instant now = now();
		return checkTarget(url, kafka).then(checkTokenEgress(oauth2)).then(this.eventLog.end(topic)).flatMap((end) -> {
			Webhook.Target target = (kafka != null) ? new Webhook.KafkaTarget(kafka)
					: new Webhook.HttpTarget(url, oauth2);
			Webhook webhook = new Webhook(generateId(), topicId, target, mode, headers,
					(secret != null) ? secret : Signatures.newSecret(), description, Webhook.Status.ACTIVE, null, 0,
					end.toString(), mode != SubscriptionMode.EVENT, now, now, types, filter, pointer, cloudEvents);
			return this.webhooks.save(webhook);
		});
	}

	/**
	 * The webhooks of a topic.
	 * @param topicId the topic
	 * @return its webhooks, ordered by id
	 */
	public List<Webhook> list(String topicId) {
		this.topics.require(topicId);
		ensureReady();
		return this.webhooks.list(topicId);
	}

	/**
	 * One webhook of a topic.
	 * @param topicId the topic
	 * @param webhookId the webhook
	 * @return the webhook
	 */
	public Webhook find(String topicId, String webhookId) {
		this.topics.require(topicId);
		ensureReady();
		return this.webhooks.get(webhookId)
			.filter((webhook) -> webhook.topicId().equals(topicId))
			.orElseThrow(() -> new StreamgateException(ProblemType.WEBHOOK_NOT_FOUND,
					"Topic '" + topicId + "' has no webhook '" + webhookId + "'"));
	}

	/**
	 * The committed delivery state of a webhook.
	 * @param webhook the webhook
	 * @return its state
	 */
	public dev.streamgate.core.webhook.DeliveryState state(Webhook webhook) {
		return this.states.current(webhook);
	}

	/**
	 * Changes a webhook: status ({@code active} resumes from its cursor), URL, headers,
	 * description.
	 * @param topicId the topic
	 * @param webhookId the webhook
	 * @param patch a merge patch
	 * @return the stored webhook
	 */
	public Mono<Webhook> update(String topicId, String webhookId, JsonNode patch) {
		Webhook current = find(topicId, webhookId);
		object(patch, PATCHABLE);
		List<FieldError> errors = new ArrayList<>();
		Webhook.HttpTarget currentHttp = (current.target() instanceof Webhook.HttpTarget http) ? http : null;
		KafkaEndpoint currentKafka = (current.target() instanceof Webhook.KafkaTarget target) ? target.endpoint()
				: null;
		String url = patch.has("url") ? url(patch.get("url"), currentKafka == null, errors)
				: (currentHttp != null) ? currentHttp.url() : null;
		KafkaEndpoint kafka = patch.has("kafka") ? kafka(patch.get("kafka"), currentKafka, errors) : currentKafka;
		if ((url == null) == (kafka == null)) {
			errors.add(new FieldError(patch.has("kafka") ? "/kafka" : "/url",
					"a webhook delivers to exactly one of url and kafka"));
		}
		Map<String, String> headers = patch.has("headers") ? keepMasked(headers(patch.get("headers"), errors), current)
				: current.headers();
		String description = patch.has("description") ? description(patch.get("description"), errors)
				: current.description();
		Webhook.Status status = patch.has("status") ? status(patch.get("status"), errors) : current.status();
		ClientCredentials currentOauth2 = (currentHttp != null) ? currentHttp.oauth2() : null;
		ClientCredentials oauth2 = patch.has("oauth2") ? oauth2(patch.get("oauth2"), currentOauth2, errors)
				: currentOauth2;
		if (kafka != null && patch.has("oauth2") && oauth2 != null) {
			errors.add(new FieldError("/oauth2", "is for url: a webhook that delivers into Kafka takes none"));
		}
		List<String> types = patch.has("types") ? types(patch.get("types"), errors) : current.types();
		String filter = patch.has("filter") ? filter(patch.get("filter"), errors) : current.filter();
		String cloudEvents = patch.has("cloudEvents") ? cloudEvents(patch.get("cloudEvents"), errors)
				: current.cloudEvents();
		select(this.topics.require(topicId).topic(), types, filter, current.pointer(), errors);
		refuseIfAny(errors);
		Instant now = now();
		Webhook.Target target = (kafka != null) ? new Webhook.KafkaTarget(kafka) : new Webhook.HttpTarget(url, oauth2);
		Webhook changed = new Webhook(current.id(), current.topicId(), target, current.mode(), headers,
				current.secret(), description, current.status(), current.disabledReason(), current.epoch(),
				current.start(), current.startWithSnapshot(), current.createdAt(), now, types, filter,
				current.pointer(), cloudEvents);
		Webhook toSave = (status == current.status()) ? changed
				: changed.withStatus(status, "disabled through the API", now);
		return ((patch.has("url") || patch.has("kafka")) ? checkTarget(url, kafka) : Mono.<Void>empty())
			.then(patch.has("oauth2") ? checkTokenEgress(oauth2) : Mono.<Void>empty())
			.then(Mono.defer(() -> this.webhooks.save(toSave)));
	}

	/**
	 * Deletes a webhook, its cursor and its attempts.
	 * @param topicId the topic
	 * @param webhookId the webhook
	 * @return completes once deleted
	 */
	public Mono<Void> delete(String topicId, String webhookId) {
		find(topicId, webhookId);
		return this.webhooks.delete(webhookId)
			.then(Mono.defer(() -> this.states.delete(webhookId)))
			.then(Mono.fromRunnable(() -> this.attempts.forget(webhookId)));
	}

	/**
	 * Deletes every webhook of a deleted topic.
	 * @param topicId the topic
	 * @return completes once deleted
	 */
	public Mono<Void> deleteAll(String topicId) {
		return Flux.fromIterable(this.webhooks.list(topicId))
			.concatMap((webhook) -> this.webhooks.delete(webhook.id())
				.then(Mono.defer(() -> this.states.delete(webhook.id())))
				.then(Mono.fromRunnable(() -> this.attempts.forget(webhook.id()))))
			.then();
	}

	/**
	 * Sends one {@code ping} delivery now, whatever the webhook's status.
	 * @param topicId the topic
	 * @param webhookId the webhook
	 * @return the attempt
	 */
	public Mono<Attempt> ping(String topicId, String webhookId) {
		Webhook webhook = find(topicId, webhookId);
		Instant at = this.clock.instant();
		String messageId = "ping_" + UUID.randomUUID().toString().replace("-", "");
		byte[] data = ("{\"webhookId\":\"" + webhook.id() + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
		Delivery delivery = Delivery.of(messageId, "ping", topicId, "ping", at, data);
		return this.sender.send(webhook, delivery).flatMap((result) -> {
			Attempt attempt = new Attempt(webhook.id(), at, messageId, "ping", 1, result.statusCode(),
					result.durationMs(), result.error(), result.isSuccess() ? "delivered" : "failed",
					result.responseBody());
			return this.attempts.recordReadable(attempt).onErrorResume((ex) -> Mono.empty()).thenReturn(attempt);
		});
	}

	/**
	 * The newest attempts of a webhook.
	 * @param topicId the topic
	 * @param webhookId the webhook
	 * @param limit how many at most
	 * @return the attempts, newest first
	 */
	public List<Attempt> attempts(String topicId, String webhookId, int limit) {
		return this.attempts.recent(find(topicId, webhookId).id(), limit);
	}

	/**
	 * Delivers again from a cursor or a time, in a new epoch; the webhook keeps its
	 * status.
	 * @param topicId the topic
	 * @param webhookId the webhook
	 * @param body {@code {"from": cursor}} or {@code {"since": time}}
	 * @return the webhook
	 */
	public Mono<Webhook> replay(String topicId, String webhookId, JsonNode body) {
		Webhook current = find(topicId, webhookId);
		Topic topic = this.topics.require(topicId).topic();
		object(body, Set.of("from", "since"));
		if (body.has("from") == body.has("since")) {
			throw invalid(new FieldError("", "give exactly one of 'from' (a cursor) and 'since' (an ISO-8601 time)"));
		}
		Mono<Cursor> start;
		if (body.has("from")) {
			JsonNode from = body.get("from");
			if (!from.isString()) {
				throw invalid(new FieldError("/from", "must be a cursor string"));
			}
			CursorFormat cursors = CursorFormat.of(topic);
			Cursor cursor;
			try {
				cursor = cursors.parse(from.asString())
					.orElseThrow(() -> invalid(new FieldError("/from",
							"is no cursor of this topic (one of a topic of the same id, deleted since?)")));
			}
			catch (IllegalArgumentException ex) {
				throw invalid(new FieldError("/from", ex.getMessage()));
			}
			start = this.eventLog.end(topic)
				.flatMap((end) -> end.reaches(cursor) ? Mono.just(cursor) : Mono.error(invalid(new FieldError("/from",
						"is past the end of the topic's events (" + cursors.format(end) + ")"))));
		}
		else {
			Instant since = time(body.get("since"));
			start = this.eventLog.at(topic, since);
		}
		return start.zipWith(this.eventLog.start(topic))
			.flatMap((cursors) -> this.webhooks
				.save(current.replayedFrom(cursors.getT1().max(cursors.getT2()).toString(), now())));
	}

	/**
	 * A webhook's delivery cursor as clients see it (the one cursor format).
	 * @param webhook the webhook
	 * @param state its delivery state
	 * @return the cursor
	 */
	public String cursor(Webhook webhook, DeliveryState state) {
		Topic topic = this.topics.require(webhook.topicId()).topic();
		return CursorFormat.of(topic).format(Cursor.parse(state.cursor(), topic.partitions()));
	}

	/**
	 * A URL must be outside the operator's network; a Kafka target's bootstrap servers
	 * too, and its topic must exist and take these credentials.
	 */
	private Mono<Void> checkTarget(String url, KafkaEndpoint kafka) {
		if (kafka == null) {
			return this.egress.require(URI.create(url), "/url", ProblemType.INVALID_WEBHOOK);
		}
		Mono<Void> servers = Flux.fromIterable(kafka.servers())
			.concatMap((server) -> this.egress.require(URI.create("kafka://" + server), "/kafka/bootstrapServers",
					ProblemType.INVALID_WEBHOOK))
			.then();
		return servers.then(this.kafkaSink.check(kafka))
			.flatMap((problem) -> problem
				.<Mono<Void>>map((reason) -> Mono.error(invalid(new FieldError("/kafka", reason))))
				.orElse(Mono.empty()));
	}

	/**
	 * A Kafka target from a request, merged (RFC 7386) into the current one on a change;
	 * the stored password stays when sent back masked, for the same bootstrap servers.
	 */
	private static KafkaEndpoint kafka(JsonNode node, KafkaEndpoint current, List<FieldError> errors) {
		KafkaEndpoint kafka = merged(node, (current != null) ? current.withPassword(TopicJson.MASK) : null,
				KafkaEndpoint.class, "/kafka", "an object of bootstrapServers, topic and security", errors);
		if (kafka == null) {
			return null;
		}
		if (kafka.security() != null && TopicJson.MASK.equals(kafka.security().password())) {
			if (current == null || current.security() == null
					|| !java.util.Objects.equals(current.bootstrapServers(), kafka.bootstrapServers())) {
				errors.add(new FieldError("/kafka/security/password",
						"must be given again when bootstrapServers change: a stored password goes only to its own cluster"));
				return null;
			}
			kafka = kafka.withPassword(current.security().password());
		}
		kafka.validate("/kafka", errors);
		return kafka;
	}

	private Mono<Void> checkTokenEgress(ClientCredentials oauth2) {
		return (oauth2 != null)
				? this.egress.require(oauth2.tokenUrl(), "/oauth2/tokenUrl", ProblemType.INVALID_WEBHOOK)
				: Mono.empty();
	}

	/**
	 * Client credentials from a request, merged (RFC 7386) into the current ones on a
	 * change: {@code null} removes them; the stored secret stays, sent back masked or not
	 * sent, but only for the token URL it was given for.
	 */
	private static ClientCredentials oauth2(JsonNode node, ClientCredentials current, List<FieldError> errors) {
		ClientCredentials oauth2 = merged(node, (current != null) ? current.withSecret(TopicJson.MASK) : null,
				ClientCredentials.class, "/oauth2",
				"an object of tokenUrl, clientId, clientSecret, scope, audience, authentication", errors);
		if (oauth2 == null) {
			return null;
		}
		if (TopicJson.MASK.equals(oauth2.clientSecret())) {
			if (current == null || oauth2.tokenUrl() == null || !current.tokenUrl().equals(oauth2.tokenUrl())) {
				errors.add(new FieldError("/oauth2/clientSecret",
						"must be given again when tokenUrl changes: a stored secret goes only to its own token URL"));
				return null;
			}
			oauth2 = oauth2.withSecret(current.clientSecret());
		}
		oauth2 = oauth2.withDefaults();
		oauth2.validate("/oauth2", errors);
		return oauth2;
	}

	/**
	 * A settings object from a request: {@code null} for JSON null or absent, merged (RFC
	 * 7386) into the current settings (whose secret reads as the mask) on a change, read
	 * strictly.
	 */
	private static <T> T merged(JsonNode node, T maskedCurrent, Class<T> type, String pointer, String shape,
			List<FieldError> errors) {
		if (node == null || node.isNull()) {
			return null;
		}
		JsonNode merged = node;
		if (maskedCurrent != null && node.isObject()) {
			ObjectNode base = TopicJson.strictMapper().valueToTree(maskedCurrent);
			merged = MergePatch.apply(base, node);
		}
		try {
			return TopicJson.strictMapper().treeToValue(merged, type);
		}
		catch (JacksonException ex) {
			errors.add(new FieldError(pointer, "must be " + shape + ": " + JsonErrors.syntax(ex)));
			return null;
		}
	}

	private static void object(JsonNode body, Set<String> allowed) {
		if (!body.isObject()) {
			throw invalid(new FieldError("", "must be a JSON object"));
		}
		List<FieldError> unknown = new ArrayList<>();
		body.propertyNames().forEach((name) -> {
			if (!allowed.contains(name)) {
				unknown.add(new FieldError("/" + name,
						"is not a field here; fields: " + allowed.stream().sorted().toList()));
			}
		});
		refuseIfAny(unknown);
	}

	private static String url(JsonNode node, boolean required, List<FieldError> errors) {
		if (node == null || node.isNull()) {
			if (required) {
				errors.add(new FieldError("/url", "is required"));
			}
			return null;
		}
		if (!node.isString()) {
			errors.add(new FieldError("/url", "must be a string"));
			return null;
		}
		String text = node.asString();
		if (text.length() > MAX_URL) {
			errors.add(new FieldError("/url", "must be at most " + MAX_URL + " characters"));
			return null;
		}
		EgressUrls.parse(text, "/url", errors);
		return text;
	}

	private static List<String> types(JsonNode node, List<FieldError> errors) {
		if (node == null || node.isNull()) {
			return null;
		}
		List<String> types = new ArrayList<>();
		if (node.isArray()) {
			node.forEach((item) -> types.add(item.isString() ? item.asString() : null));
		}
		if (!node.isArray() || types.contains(null)) {
			errors
				.add(new FieldError("/types", "must be an array of event types, e.g. [\"order.*\", \"invoice.paid\"]"));
			return null;
		}
		return List.copyOf(types);
	}

	private static String filter(JsonNode node, List<FieldError> errors) {
		if (node == null || node.isNull()) {
			return null;
		}
		if (!node.isString()) {
			errors.add(new FieldError("/filter", "must be a CEL expression in a string"));
			return null;
		}
		return node.asString();
	}

	private static String cloudEvents(JsonNode node, List<FieldError> errors) {
		if (node == null || node.isNull()) {
			return null;
		}
		String mode = node.isString() ? node.asString() : null;
		if (!Webhook.STRUCTURED.equals(mode) && !Webhook.BINARY.equals(mode)) {
			errors.add(new FieldError("/cloudEvents",
					"must be structured (the body is the CloudEvent) or binary (ce-* headers, the body is the data)"));
			return null;
		}
		return mode;
	}

	private static String pointer(JsonNode node, List<FieldError> errors) {
		if (node == null || node.isNull()) {
			return null;
		}
		if (!node.isString()) {
			errors.add(new FieldError("/pointer", "must be a JSON pointer in a string, e.g. \"/prices/EURUSD\""));
			return null;
		}
		return node.asString();
	}

	/**
	 * Types and a filter select the events of event topics, a pointer shows part of a
	 * snapshot topic's document; the errors name each fault.
	 */
	@SuppressWarnings("unchecked")
	private static void select(Topic topic, List<String> types, String filter, String pointer,
			List<FieldError> errors) {
		try {
			SubscribeParameters.selection(topic, types, filter, pointer, "/");
		}
		catch (StreamgateException ex) {
			Object found = (ex.getBody().getProperties() != null) ? ex.getBody().getProperties().get("errors") : null;
			if (found instanceof List<?> list && !list.isEmpty()) {
				errors.addAll((List<FieldError>) list);
			}
			else {
				errors.add(new FieldError((filter != null) ? "/filter" : "/types", ex.getBody().getDetail()));
			}
		}
	}

	private static SubscriptionMode mode(Topic topic, JsonNode node, List<FieldError> errors) {
		if (node == null || node.isNull()) {
			return topic.defaultSubscriptionMode();
		}
		SubscriptionMode mode = node.isString() ? SubscriptionMode.fromValue(node.asString()) : null;
		if (mode == null || !topic.subscriptionModes().contains(mode)) {
			errors.add(new FieldError("/mode", "must be one of the topic's modes " + topic.subscriptionModes()));
		}
		return mode;
	}

	/** Header values sent back masked, as a client read them, keep their stored value. */
	private static Map<String, String> keepMasked(Map<String, String> headers, Webhook current) {
		Map<String, String> kept = new LinkedHashMap<>(headers);
		kept.replaceAll((name, value) -> TopicJson.MASK.equals(value) && current.headers().containsKey(name)
				? current.headers().get(name) : value);
		return kept;
	}

	private static Map<String, String> headers(JsonNode node, List<FieldError> errors) {
		Map<String, String> headers = new LinkedHashMap<>();
		if (node == null || node.isNull()) {
			return headers;
		}
		if (!node.isObject()) {
			errors.add(new FieldError("/headers", "must be an object of header names to string values"));
			return headers;
		}
		if (node.size() > MAX_HEADERS) {
			errors.add(new FieldError("/headers", "must have at most " + MAX_HEADERS + " headers"));
		}
		node.properties().forEach((entry) -> {
			String name = entry.getKey();
			String pointer = "/headers/" + name.replace("~", "~0").replace("/", "~1");
			String lower = name.toLowerCase(Locale.ROOT);
			if (!HEADER_NAME.matcher(name).matches()) {
				errors.add(new FieldError(pointer, "is not a valid header name"));
			}
			else if (RESERVED_HEADERS.contains(lower) || lower.startsWith("webhook-")) {
				errors.add(new FieldError(pointer, "is set by streamgate and cannot be registered"));
			}
			else if (!entry.getValue().isString()) {
				errors.add(new FieldError(pointer, "must be a string"));
			}
			else if (entry.getValue().asString().length() > MAX_HEADER_VALUE
					|| entry.getValue().asString().chars().anyMatch((c) -> (c < 0x20 && c != '\t') || c > 0x7e)) {
				errors.add(new FieldError(pointer, "must be at most " + MAX_HEADER_VALUE
						+ " printable ASCII characters (no line breaks or other control characters)"));
			}
			else {
				headers.put(name, entry.getValue().asString());
			}
		});
		return headers;
	}

	private static String secret(JsonNode node, List<FieldError> errors) {
		if (node == null || node.isNull()) {
			return null;
		}
		if (!node.isString()) {
			errors.add(new FieldError("/secret", "must be a string"));
			return null;
		}
		String refusal = Signatures.refusal(node.asString());
		if (refusal != null) {
			errors.add(new FieldError("/secret", refusal));
		}
		return node.asString();
	}

	private static String description(JsonNode node, List<FieldError> errors) {
		if (node == null || node.isNull()) {
			return null;
		}
		if (!node.isString() || node.asString().length() > MAX_DESCRIPTION) {
			errors
				.add(new FieldError("/description", "must be a string of at most " + MAX_DESCRIPTION + " characters"));
			return null;
		}
		return node.asString();
	}

	private static Webhook.Status status(JsonNode node, List<FieldError> errors) {
		if (node != null && node.isString()) {
			for (Webhook.Status status : Webhook.Status.values()) {
				if (status.value().equals(node.asString())) {
					return status;
				}
			}
		}
		errors.add(new FieldError("/status", "must be \"active\" or \"disabled\""));
		return null;
	}

	private static Instant time(JsonNode node) {
		return IsoTimes.parse((node != null && node.isString()) ? node.asString() : null)
			.orElseThrow(() -> invalid(new FieldError("/since", "must be " + IsoTimes.EXPECTED)));
	}

	private static void refuseIfAny(List<FieldError> errors) {
		if (!errors.isEmpty()) {
			String detail = String.join("; ", errors.stream().map((e) -> e.pointer() + " " + e.detail()).toList());
			throw new StreamgateException(ProblemType.INVALID_WEBHOOK, detail).withErrors(errors);
		}
	}

	private static StreamgateException invalid(FieldError error) {
		return new StreamgateException(ProblemType.INVALID_WEBHOOK, error.pointer() + " " + error.detail())
			.withErrors(List.of(error));
	}

	private void ensureReady() {
		if (!this.webhooks.isCaughtUp()) {
			throw new StreamgateException(ProblemType.NOT_READY,
					"This node is still reading the webhook registrations; retry shortly")
				.withRetryAfter(Duration.ofSeconds(2));
		}
	}

	private Instant now() {
		return this.clock.instant().truncatedTo(ChronoUnit.MILLIS);
	}

	private static String generateId() {
		return "wh_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
	}

}
