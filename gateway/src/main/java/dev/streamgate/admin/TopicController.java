package dev.streamgate.admin;

import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import dev.streamgate.core.event.EventLogStatus;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.storage.EventTypeCounts;
import dev.streamgate.core.topic.MergePatch;
import dev.streamgate.core.topic.PollerStatus.LastPoll;
import dev.streamgate.core.topic.PollerStatus;
import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.topic.SubscriberCounts;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.topic.TopicJson;
import dev.streamgate.core.web.IsoTimes;
import dev.streamgate.core.web.ProblemResponses;
import dev.streamgate.subscribe.webhook.WebhookAdmin;

/**
 * The topic admin API: {@code /api/v1/topics}.
 */
@RestController
@RequestMapping(path = "/api/v1/topics", produces = MediaType.APPLICATION_JSON_VALUE)
@ConditionalOnRole(Role.ADMIN)
@Tag(name = "Topics", description = "Create, read, change and delete topics (role admin)")
public class TopicController {

	private static final int MAX_PAGE_SIZE = 100;

	private final TopicAdmin admin;

	private final List<SubscriberCounts> subscriberCounts;

	private final List<PollerStatus> pollerStatus;

	private final WebhookAdmin webhooks;

	public TopicController(TopicAdmin admin, List<SubscriberCounts> subscriberCounts, List<PollerStatus> pollerStatus,
			WebhookAdmin webhooks) {
		this.admin = admin;
		this.webhooks = webhooks;
		this.subscriberCounts = subscriberCounts;
		this.pollerStatus = pollerStatus;
	}

	@PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
	@Operation(summary = "Create a topic",
			description = "A topic of shared storage (the default for one partition) costs no Kafka topic; "
					+ "a dedicated one gets a Kafka topic of its own")
	@RequestBody(required = true, content = @Content(schema = @Schema(implementation = Topic.class)))
	@ApiResponse(responseCode = "201", description = "Created",
			content = @Content(schema = @Schema(implementation = Topic.class)))
	@ProblemResponses({ 400, 409, 413, 415, 503 })
	public Mono<ResponseEntity<ObjectNode>> create(
			@org.springframework.web.bind.annotation.RequestBody(required = false) byte[] body) {
		return this.admin.create(TopicJson.parseTree(required(body)))
			.map((stored) -> ResponseEntity.created(URI.create("/api/v1/topics/" + stored.id()))
				.eTag(stored.etag())
				.body(TopicJson.toResponse(stored.topic())));
	}

	@GetMapping
	@Operation(summary = "List topics, ordered by id")
	@ApiResponse(responseCode = "200", description = "A page of topics",
			content = @Content(schema = @Schema(implementation = TopicPageSchema.class)))
	@ProblemResponses({ 400, 503 })
	public TopicPageDocument list(
			@Parameter(description = "page number, from 0") @RequestParam(defaultValue = "0") String page,
			@Parameter(description = "topics per page, 1 to 100") @RequestParam(defaultValue = "20") String size) {
		int pageNumber = parseParameter("page", page, 0, Integer.MAX_VALUE);
		int pageSize = parseParameter("size", size, 1, MAX_PAGE_SIZE);
		TopicAdmin.TopicPage result = this.admin.list(pageNumber, pageSize);
		return new TopicPageDocument(
				result.items().stream().map((stored) -> TopicJson.toResponse(stored.topic())).toList(), result.page(),
				result.size(), result.total());
	}

	@GetMapping("/{topicId}")
	@Operation(summary = "Get a topic")
	@ApiResponse(responseCode = "200", description = "The topic, with its ETag",
			content = @Content(schema = @Schema(implementation = Topic.class)))
	@ProblemResponses({ 400, 404, 503 })
	public ResponseEntity<ObjectNode> get(@PathVariable("topicId") String id) {
		StoredTopic stored = this.admin.find(id);
		return ResponseEntity.ok().eTag(stored.etag()).body(TopicJson.toResponse(stored.topic()));
	}

	@PatchMapping(path = "/{topicId}", consumes = { MergePatch.MEDIA_TYPE, MediaType.APPLICATION_JSON_VALUE })
	@Operation(summary = "Change a topic with an RFC 7386 merge patch",
			description = "Send If-Match with the ETag of the version you read to avoid lost updates.")
	@RequestBody(required = true,
			content = @Content(mediaType = MergePatch.MEDIA_TYPE, schema = @Schema(implementation = Topic.class)))
	@ApiResponse(responseCode = "200", description = "The changed topic, with its new ETag",
			content = @Content(schema = @Schema(implementation = Topic.class)))
	@ProblemResponses({ 400, 404, 409, 412, 413, 415, 503 })
	public Mono<ResponseEntity<ObjectNode>> patch(@PathVariable("topicId") String id,
			@RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch,
			@org.springframework.web.bind.annotation.RequestBody(required = false) byte[] body) {
		this.admin.find(id);
		JsonNode patch = TopicJson.parseTree(required(body));
		return this.admin.update(id, patch, ifMatch)
			.map((stored) -> ResponseEntity.ok().eTag(stored.etag()).body(TopicJson.toResponse(stored.topic())));
	}

	@DeleteMapping("/{topicId}")
	@Operation(summary = "Delete a topic and its events",
			description = "Open streams of the topic end with a problem event.")
	@ApiResponse(responseCode = "204", description = "Deleted")
	@ProblemResponses({ 400, 404, 412, 503 })
	public Mono<ResponseEntity<Void>> delete(@PathVariable("topicId") String id,
			@RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch) {
		return this.admin.delete(id, ifMatch).thenReturn(ResponseEntity.noContent().build());
	}

	@GetMapping("/{topicId}/status")
	@Operation(summary = "Live figures of a topic's events")
	@ApiResponse(responseCode = "200", description = "The figures",
			content = @Content(schema = @Schema(implementation = TopicStatusDocument.class)))
	@ProblemResponses({ 400, 404, 503 })
	public Mono<TopicStatusDocument> status(@PathVariable("topicId") String id) {
		Map<String, Integer> subscribers = new TreeMap<>();
		this.subscriberCounts.forEach((counts) -> subscribers.put(counts.channel(), counts.connected(id)));
		LastPoll lastPoll = this.pollerStatus.stream()
			.map((status) -> status.lastPoll(id))
			.flatMap(Optional::stream)
			.findFirst()
			.orElse(null);
		Map<String, Long> webhookCounts = new TreeMap<>(Map.of("active", 0L, "disabled", 0L, "failing", 0L));
		this.webhooks.list(id).forEach((webhook) -> {
			webhookCounts.merge(webhook.status().value(), 1L, Long::sum);
			if (webhook.isActive() && this.webhooks.state(webhook).failingSince() != null) {
				webhookCounts.merge("failing", 1L, Long::sum);
			}
		});
		return this.admin.status(id)
			.map((events) -> new TopicStatusDocument(id, events, subscribers, lastPoll, webhookCounts));
	}

	@GetMapping("/{topicId}/types")
	@Operation(summary = "The event types published to a topic",
			description = "Each type its publications named (?type= on publish), with how many events of it were "
					+ "published and when the last one was; counted by the publishing nodes and written to Kafka "
					+ "every 2 s, so a publication shows within seconds.")
	@ApiResponse(responseCode = "200", description = "The types, ordered by name",
			content = @Content(schema = @Schema(implementation = TypeList.class)))
	@ProblemResponses({ 400, 404, 503 })
	public TypeList types(@PathVariable("topicId") String id) {
		return new TypeList(this.admin.types(id));
	}

	@GetMapping("/{topicId}/cursor")
	@Operation(summary = "The cursor of a point in time",
			description = "The cursor just before the first event published at or after `at`: a stream resumed from it "
					+ "(lastEventId or Last-Event-ID) delivers what was published since then, as webhook replay's since does.")
	@ApiResponse(responseCode = "200", description = "The cursor",
			content = @Content(schema = @Schema(implementation = CursorDocument.class)))
	@ProblemResponses({ 400, 404, 503 })
	public Mono<CursorDocument> cursorAt(@PathVariable("topicId") String id,
			@Parameter(description = "an ISO-8601 time with an offset, such as 2026-11-21T10:00:00Z") @RequestParam(
					required = false) String at) {
		Instant time = parseTime(at);
		return this.admin.cursorAt(id, time).map((cursor) -> new CursorDocument(cursor, time));
	}

	private static Instant parseTime(String value) {
		return IsoTimes.parse(value)
			.orElseThrow(() -> new StreamgateException(ProblemType.INVALID_PARAMETER,
					"Query parameter 'at' must be " + IsoTimes.EXPECTED + ", was '" + value + "'"));
	}

	private static byte[] required(byte[] body) {
		if (body == null || body.length == 0) {
			throw new StreamgateException(ProblemType.MISSING_BODY, "This request needs a JSON body");
		}
		return body;
	}

	private static int parseParameter(String name, String value, int min, int max) {
		try {
			int parsed = Integer.parseInt(value.trim());
			if (parsed >= min && parsed <= max) {
				return parsed;
			}
		}
		catch (NumberFormatException ex) {
			// answered below
		}
		throw new StreamgateException(ProblemType.INVALID_PARAMETER, "Query parameter '" + name
				+ "' must be an integer from " + min + " to " + max + ", was '" + value + "'");
	}

	/**
	 * A page of topics.
	 *
	 * @param items the topics
	 * @param page the page number
	 * @param size the page size
	 * @param total how many topics there are
	 */
	public record TopicPageDocument(List<ObjectNode> items, int page, int size, int total) {
	}

	/**
	 * What the OpenAPI document says of {@link TopicPageDocument}, whose items are topics
	 * as responses render them (write-only fields masked).
	 *
	 * @param items the topics
	 * @param page the page number
	 * @param size the page size
	 * @param total how many topics there are
	 */
	@Schema(name = "TopicPage")
	record TopicPageSchema(List<Topic> items, int page, int size, int total) {
	}

	/**
	 * A cursor for a point in time.
	 *
	 * @param id the cursor: resume after it to get what was published since {@code at}
	 * @param at the time asked for
	 */
	public record CursorDocument(String id, Instant at) {
	}

	/**
	 * A topic's event types.
	 *
	 * @param items each type, with its count and the time of its newest event
	 */
	public record TypeList(List<EventTypeCounts.TypeCount> items) {
	}

	/**
	 * Live figures of one topic.
	 *
	 * @param id the topic id
	 * @param events where its events stand
	 * @param subscribers connected subscribers per channel on the node that answers
	 * (empty when it runs no subscriber role)
	 * @param lastPoll the last poll of an http-poller topic's source, or of a kafka
	 * topic's source, when the answering node runs its publisher
	 * @param webhooks the topic's webhooks by status, and how many active ones are
	 * failing (no success since their last failure)
	 */
	@JsonInclude(JsonInclude.Include.NON_NULL)
	public record TopicStatusDocument(String id, EventLogStatus events,
			@Schema(description = "connected subscribers per channel on the answering node",
					example = "{\"sse\": 3}") Map<String, Integer> subscribers,
			@Schema(description = "http-poller and kafka topics: the last poll of the source, present when the "
					+ "answering node runs the topic's publisher (exactly one node of the http-poller or kafka-publisher role does); for kafka "
					+ "topics the detail says the next source offsets, the records behind and those not mirrored") LastPoll lastPoll,
			@Schema(description = "the topic's webhooks by status, and how many active ones fail (no success since "
					+ "their last failure)",
					example = "{\"active\": 2, \"disabled\": 0, \"failing\": 1}") Map<String, Long> webhooks) {
	}

}
