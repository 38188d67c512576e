package dev.streamgate.subscribe.webhook;

import java.net.URI;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

import dev.streamgate.core.oauth.ClientCredentials;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.topic.KafkaEndpoint;
import dev.streamgate.core.topic.MergePatch;
import dev.streamgate.core.topic.TopicJson;
import dev.streamgate.core.web.ProblemResponses;
import dev.streamgate.core.webhook.Attempt;
import dev.streamgate.core.webhook.DeliveryState;
import dev.streamgate.core.webhook.Webhook;

/**
 * The webhook admin API: {@code /api/v1/topics/{topicId}/webhooks}.
 */
@RestController
@RequestMapping(path = "/api/v1/topics/{topicId}/webhooks", produces = MediaType.APPLICATION_JSON_VALUE)
@ConditionalOnRole(Role.ADMIN)
@Tag(name = "Webhooks", description = "Register webhooks, follow their deliveries, replay (role admin)")
public class WebhookController {

	private static final int MAX_ATTEMPTS_PAGE = 100;

	private final WebhookAdmin admin;

	public WebhookController(WebhookAdmin admin) {
		this.admin = admin;
	}

	@PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
	@Operation(summary = "Register a webhook",
			description = "Deliveries start with the events published after registration. The secret is shown only here.")
	@RequestBody(required = true, content = @Content(schema = @Schema(implementation = WebhookRequest.class)))
	@ApiResponse(responseCode = "201", description = "Registered",
			content = @Content(schema = @Schema(implementation = WebhookDocument.class)))
	@ProblemResponses({ 400, 404, 413, 415, 429, 503 })
	public Mono<ResponseEntity<WebhookDocument>> create(@PathVariable String topicId,
			@org.springframework.web.bind.annotation.RequestBody(required = false) byte[] body) {
		return this.admin.create(topicId, TopicJson.parseTree(required(body)))
			.map((webhook) -> ResponseEntity
				.created(URI.create("/api/v1/topics/" + topicId + "/webhooks/" + webhook.id()))
				.body(document(webhook, webhook.secret(), null)));
	}

	@GetMapping
	@Operation(summary = "List a topic's webhooks, ordered by id")
	@ApiResponse(responseCode = "200", description = "The webhooks",
			content = @Content(schema = @Schema(implementation = WebhookList.class)))
	@ProblemResponses({ 400, 404, 503 })
	public WebhookList list(@PathVariable String topicId) {
		return new WebhookList(this.admin.list(topicId)
			.stream()
			.map((webhook) -> document(webhook, null, this.admin.state(webhook)))
			.toList());
	}

	@GetMapping("/{webhookId}")
	@Operation(summary = "Get a webhook and where its deliveries stand")
	@ApiResponse(responseCode = "200", description = "The webhook",
			content = @Content(schema = @Schema(implementation = WebhookDocument.class)))
	@ProblemResponses({ 400, 404, 503 })
	public WebhookDocument get(@PathVariable String topicId, @PathVariable String webhookId) {
		Webhook webhook = this.admin.find(topicId, webhookId);
		return document(webhook, null, this.admin.state(webhook));
	}

	@PatchMapping(path = "/{webhookId}", consumes = { MergePatch.MEDIA_TYPE, MediaType.APPLICATION_JSON_VALUE })
	@Operation(summary = "Enable, disable or change a webhook",
			description = "{\"status\": \"disabled\"} stops deliveries and keeps the cursor; "
					+ "{\"status\": \"active\"} resumes from it. url, headers and description can change too.")
	@RequestBody(required = true,
			content = @Content(mediaType = MergePatch.MEDIA_TYPE,
					schema = @Schema(implementation = WebhookPatch.class)))
	@ApiResponse(responseCode = "200", description = "The changed webhook",
			content = @Content(schema = @Schema(implementation = WebhookDocument.class)))
	@ProblemResponses({ 400, 404, 413, 415, 503 })
	public Mono<WebhookDocument> patch(@PathVariable String topicId, @PathVariable String webhookId,
			@org.springframework.web.bind.annotation.RequestBody(required = false) byte[] body) {
		this.admin.find(topicId, webhookId);
		return this.admin.update(topicId, webhookId, TopicJson.parseTree(required(body)))
			.map((webhook) -> document(webhook, null, this.admin.state(webhook)));
	}

	@DeleteMapping("/{webhookId}")
	@Operation(summary = "Delete a webhook, its cursor and its attempts")
	@ApiResponse(responseCode = "204", description = "Deleted")
	@ProblemResponses({ 400, 404, 503 })
	public Mono<ResponseEntity<Void>> delete(@PathVariable String topicId, @PathVariable String webhookId) {
		return this.admin.delete(topicId, webhookId).thenReturn(ResponseEntity.noContent().build());
	}

	@PostMapping("/{webhookId}/test")
	@Operation(summary = "Send one ping delivery now",
			description = "A signed POST of {\"type\": \"ping\", ...}; the answer is the attempt, also in the attempts log.")
	@ApiResponse(responseCode = "200", description = "The attempt",
			content = @Content(schema = @Schema(implementation = Attempt.class)))
	@ProblemResponses({ 400, 404, 503 })
	public Mono<Attempt> test(@PathVariable String topicId, @PathVariable String webhookId) {
		return this.admin.ping(topicId, webhookId);
	}

	@GetMapping("/{webhookId}/attempts")
	@Operation(summary = "The newest delivery attempts, newest first")
	@ApiResponse(responseCode = "200", description = "The attempts",
			content = @Content(schema = @Schema(implementation = AttemptList.class)))
	@ProblemResponses({ 400, 404, 503 })
	public AttemptList attempts(@PathVariable String topicId, @PathVariable String webhookId,
			@Parameter(description = "how many, 1 to 100") @RequestParam(defaultValue = "50") String limit) {
		int count;
		try {
			count = Integer.parseInt(limit.trim());
		}
		catch (NumberFormatException ex) {
			count = -1;
		}
		if (count < 1 || count > MAX_ATTEMPTS_PAGE) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					"Query parameter 'limit' must be an integer from 1 to " + MAX_ATTEMPTS_PAGE + ", was '" + limit
							+ "'");
		}
		return new AttemptList(this.admin.attempts(topicId, webhookId, count));
	}

	@PostMapping(path = "/{webhookId}/replay", consumes = MediaType.APPLICATION_JSON_VALUE)
	@Operation(summary = "Deliver again from a cursor or a time",
			description = "{\"from\": \"<cursor>\"} delivers the events after that cursor; {\"since\": \"<ISO-8601 time>\"} "
					+ "those published since then. Replayed deliveries carry new webhook-ids.")
	@RequestBody(required = true, content = @Content(schema = @Schema(implementation = ReplayRequest.class)))
	@ApiResponse(responseCode = "202", description = "Replay started",
			content = @Content(schema = @Schema(implementation = WebhookDocument.class)))
	@ProblemResponses({ 400, 404, 413, 415, 503 })
	public Mono<ResponseEntity<WebhookDocument>> replay(@PathVariable String topicId, @PathVariable String webhookId,
			@org.springframework.web.bind.annotation.RequestBody(required = false) byte[] body) {
		this.admin.find(topicId, webhookId);
		return this.admin.replay(topicId, webhookId, TopicJson.parseTree(required(body)))
			.map((webhook) -> ResponseEntity.accepted().body(document(webhook, null, DeliveryState.start(webhook))));
	}

	private WebhookDocument document(Webhook webhook, String secret, DeliveryState state) {
		Delivery delivery = (state != null) ? new Delivery(this.admin.cursor(webhook, state), state.failingSince(),
				state.delivered(), state.failed()) : null;
		// Custom headers may carry credentials: write-only, like the secret.
		Map<String, String> masked = new LinkedHashMap<>();
		webhook.headers().keySet().forEach((name) -> masked.put(name, TopicJson.MASK));
		String url = null;
		ClientCredentials oauth2 = null;
		KafkaEndpoint kafka = null;
		if (webhook.target() instanceof Webhook.HttpTarget http) {
			url = http.url();
			oauth2 = (http.oauth2() != null) ? http.oauth2().withSecret(TopicJson.MASK) : null;
		}
		else if (webhook.target() instanceof Webhook.KafkaTarget target) {
			kafka = (target.endpoint().security() != null && target.endpoint().security().password() != null)
					? target.endpoint().withPassword(TopicJson.MASK) : target.endpoint();
		}
		return new WebhookDocument(webhook.id(), webhook.topicId(), url, webhook.mode().value(), masked, oauth2, kafka,
				webhook.types(), webhook.filter(), webhook.pointer(), webhook.cloudEvents(), webhook.description(),
				webhook.status().value(), webhook.disabledReason(), secret, webhook.createdAt(), webhook.updatedAt(),
				delivery);
	}

	private static byte[] required(byte[] body) {
		if (body == null || body.length == 0) {
			throw new StreamgateException(ProblemType.MISSING_BODY, "This request needs a JSON body");
		}
		return body;
	}

	/**
	 * A registration request.
	 *
	 * @param url where deliveries are POSTed (http or https)
	 * @param mode the subscription mode, one of the topic's (default: its default mode)
	 * @param headers headers sent with every delivery
	 * @param secret a {@code whsec_} secret (generated when absent)
	 * @param description free text
	 * @param oauth2 client credentials: deliveries carry a bearer token of the endpoint's
	 * authorization server
	 * @param kafka deliver into this Kafka topic instead of to {@code url}
	 * @param types deliver only events of these types ({@code *} for any characters)
	 * @param filter deliver only events for which this CEL expression is true
	 * @param pointer deliver only this part of a snapshot topic's document
	 * @param cloudEvents deliver CloudEvents, {@code structured} or {@code binary}
	 */
	public record WebhookRequest(
			@Schema(description = "required unless kafka is given",
					example = "https://hooks.example.com/prices") String url,
			@Schema(allowableValues = {
					"snapshot-patch", "snapshot-only", "event" }) String mode,
			Map<String, String> headers, @Schema(pattern = "^whsec_[A-Za-z0-9+/]+=*$") String secret,
			@Schema(maxLength = 500) String description, ClientCredentials oauth2, KafkaEndpoint kafka,
			@Schema(description = "only events of these types; * stands for any characters; event topics only",
					example = "[\"order.*\"]") List<String> types,
			@Schema(description = "only events for which this CEL expression over data, type, key, headers, time "
					+ "and topic is true; event topics only", example = "data.amount > 100.0") String filter,
			@Schema(description = "only this part of a snapshot topic's document (an RFC 6901 JSON pointer): "
					+ "its snapshot, then the patches that change it, relative to it; cannot change after registration",
					example = "/prices/EURUSD") String pointer,
			@Schema(description = "deliver CloudEvents 1.0 instead of streamgate's envelope: structured "
					+ "(application/cloudevents+json) or binary (ce-* headers, ce_* on Kafka; the body is the data)",
					allowableValues = { "structured", "binary" }) String cloudEvents){
	}

	/**
	 * A change of a webhook.
	 *
	 * @param status {@code active} or {@code disabled}
	 * @param url a new URL
	 * @param headers new headers
	 * @param description a new description
	 * @param types new event types (null: all)
	 * @param filter a new filter (null: none)
	 * @param cloudEvents a new CloudEvents mode (null: streamgate's envelope)
	 */
	public record WebhookPatch(@Schema(allowableValues = {
			"active", "disabled" }) String status, String url, Map<String, String> headers, String description,
			List<String> types, String filter,
			@Schema(allowableValues = { "structured", "binary" }) String cloudEvents){
	}

	/**
	 * A replay request: exactly one of the two.
	 *
	 * @param from a cursor: the events after it are delivered again
	 * @param since a time: the events published since then are delivered again
	 */
	public record ReplayRequest(String from, Instant since) {
	}

	/**
	 * A webhook as the API shows it.
	 *
	 * @param id the id
	 * @param topicId the topic
	 * @param url the target
	 * @param mode the subscription mode
	 * @param headers the registered headers
	 * @param oauth2 the client credentials, secret masked
	 * @param kafka the Kafka target, password masked
	 * @param types the event types delivered, when not all
	 * @param filter the filter, when there is one
	 * @param pointer the part of the document delivered, when not all
	 * @param cloudEvents the CloudEvents mode of deliveries, when they are CloudEvents
	 * @param description the description
	 * @param status {@code active} or {@code disabled}
	 * @param disabledReason why it is disabled
	 * @param secret the signing secret, only in the answer to its registration
	 * @param createdAt when registered
	 * @param updatedAt when last changed
	 * @param delivery where deliveries stand (as committed)
	 */
	@JsonInclude(JsonInclude.Include.NON_NULL)
	public record WebhookDocument(String id, String topicId, String url, String mode, Map<String, String> headers,
			ClientCredentials oauth2, KafkaEndpoint kafka, List<String> types, String filter, String pointer,
			String cloudEvents, String description, String status, String disabledReason, String secret,
			Instant createdAt, Instant updatedAt, Delivery delivery) {
	}

	/**
	 * Where a webhook's deliveries stand.
	 *
	 * @param cursor the cursor of the last event delivered or given up
	 * @param failingSince since when it fails without a success, if it does
	 * @param delivered deliveries answered 2xx since registration or the last replay
	 * @param failed events given up since registration or the last replay
	 */
	@JsonInclude(JsonInclude.Include.NON_NULL)
	public record Delivery(String cursor, Instant failingSince, long delivered, long failed) {
	}

	/**
	 * A topic's webhooks.
	 *
	 * @param items the webhooks
	 */
	public record WebhookList(List<WebhookDocument> items) {
	}

	/**
	 * Attempts, newest first.
	 *
	 * @param items the attempts
	 */
	public record AttemptList(List<Attempt> items) {
	}

}
