package dev.streamgate.mercure;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.web.ProblemResponses;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.filter.Selection;
import dev.streamgate.mercure.HubTokens.Claims;
import dev.streamgate.mercure.HubTokens.Presented;
import dev.streamgate.subscribe.follow.DeliveryMetrics;
import dev.streamgate.subscribe.follow.Followed;
import dev.streamgate.subscribe.follow.SlowSubscriberException;
import dev.streamgate.subscribe.follow.TopicFollower;
import dev.streamgate.subscribe.follow.TopicFollowers;
import dev.streamgate.subscribe.sse.Frame;
import dev.streamgate.subscribe.sse.SseResponder;

/**
 * The Mercure hub's endpoint, {@code /.well-known/mercure}: {@code GET} subscribes
 * (Server-Sent Events of the updates whose topics the {@code topic} selectors select),
 * {@code POST} publishes an update (a form: {@code topic}, {@code data}, {@code private},
 * {@code id}, {@code type}, {@code retry}) and answers its id once Kafka has it.
 * <p>
 * Bad requests get a problem JSON with Mercure's status: 400 for a malformed one, 401
 * without a valid token where one is needed, 403 for a publication to a topic the token
 * does not grant, 413 over {@code streamgate.mercure.max-update}.
 */
@RestController
@ConditionalOnRole(Role.MERCURE)
@Tag(name = "Mercure", description = "A Mercure hub (role mercure)")
public class HubController {

	/** The hub's path. */
	public static final String PATH = "/.well-known/mercure";

	/** The channel name of the hub's subscriptions, in metrics. */
	static final String CHANNEL = "mercure";

	/**
	 * The first bytes of a stream: a comment, so that the client sees it open at once.
	 */
	private static final Frame OPENED = Frame.of(":\n\n".getBytes(StandardCharsets.UTF_8), 0);

	private final MercureHub hub;

	private final HubTokens tokens;

	private final TopicFollowers followers;

	private final SseResponder responder;

	private final MercureProperties properties;

	private final DeliveryMetrics metrics;

	private final ActiveSubscriptions subscriptions;

	HubController(MercureHub hub, HubTokens tokens, TopicFollowers followers, SseResponder responder,
			MercureProperties properties, MeterRegistry meters, ActiveSubscriptions subscriptions) {
		this.hub = hub;
		this.subscriptions = subscriptions;
		this.tokens = tokens;
		this.followers = followers;
		this.responder = responder;
		this.properties = properties;
		this.metrics = new DeliveryMetrics(CHANNEL, meters);
	}

	@GetMapping(path = PATH, produces = MediaType.TEXT_EVENT_STREAM_VALUE)
	@Operation(summary = "Subscribe to Mercure updates",
			description = "?topic=<selector> (repeatable): *, a topic, or an RFC 6570 URI template. "
					+ "Resume with the Last-Event-ID header or the lastEventID parameter (earliest: all history). "
					+ "The token (Authorization: Bearer, the mercureAuthorization cookie or the authorization "
					+ "parameter) grants private updates; without one, public updates when anonymous access is on.",
			parameters = {
					@Parameter(name = "topic", in = ParameterIn.QUERY, required = true,
							description = "a topic selector: *, a topic, or a URI template; repeatable",
							array = @ArraySchema(schema = @Schema(type = "string"), minItems = 1)),
					@Parameter(name = "lastEventID", in = ParameterIn.QUERY,
							description = "resume after this update id, or earliest"),
					@Parameter(name = "Last-Event-ID", in = ParameterIn.HEADER,
							description = "resume after this update id; wins over lastEventID"),
					@Parameter(name = HubTokens.QUERY, in = ParameterIn.QUERY,
							description = "the subscriber's token, for clients that can send neither header nor cookie") })
	@ApiResponse(responseCode = "200", description = "The updates, as Server-Sent Events",
			content = @Content(mediaType = MediaType.TEXT_EVENT_STREAM_VALUE, schema = @Schema(type = "string")))
	@ProblemResponses({ 400, 401, 429, 503 })
	public Mono<Void> subscribe(ServerWebExchange exchange) {
		ServerHttpRequest request = exchange.getRequest();
		List<TopicSelector> selectors = selectors(request.getQueryParams().get("topic"));
		String lastEventId = lastEventId(request);
		Presented presented = this.tokens.presented(request);
		Mono<Claims> claims;
		if (presented != null) {
			claims = this.tokens.subscriber(presented.token());
		}
		else if (this.properties.anonymous()) {
			claims = Mono.just(Claims.ANONYMOUS);
		}
		else {
			claims = Mono.error(HubTokens.required(
					"A subscriber's token is required (anonymous subscribers are off): " + "Authorization: Bearer, the "
							+ this.tokens.cookie() + " cookie or the " + HubTokens.QUERY + " query parameter"));
		}
		// The topic is made by the first subscriber or publisher the hub accepts, never
		// for a refused one.
		return claims.flatMap((granted) -> this.hub.topic().map((topic) -> new Accepted(granted, topic)))
			.flatMap((accepted) -> {
				Claims granted = accepted.claims();
				Topic topic = accepted.topic();
				Subscriber subscriber = new Subscriber(selectors, granted.subscribe());
				return Mono.using(() -> this.followers.acquire(topic),
						(follower) -> this.hub.start(topic, follower, lastEventId, subscriber).flatMap((start) -> {
							exchange.getResponse().getHeaders().set("Last-Event-ID", start.lastEventId());
							return this.responder.respond(exchange, granted.expiresAt(), (eventLoop, buffer) -> follower
								.open(CHANNEL, buffer, SubscriptionMode.EVENT, Selection.ALL,
										(followed) -> receives(followed, subscriber), start.resume(), eventLoop)
								.flatMapMany((events) -> Flux.concat(Flux.just(OPENED), events.mapNotNull(this::frame)))
								.transform((frames) -> announced(frames, selectors, granted))
								.onErrorResume(SlowSubscriberException.class, (ex) -> Flux.empty()), null,
									this.metrics);
						}), this.followers::release);
			});
	}

	/**
	 * The stream, its subscriptions announced while it lasts when active subscriptions
	 * are on.
	 */
	private Flux<Frame> announced(Flux<Frame> frames, List<TopicSelector> selectors, Claims claims) {
		if (!this.properties.subscriptions()) {
			return frames;
		}
		return Flux.using(() -> this.subscriptions.open(selectors, claims.payload()), (opened) -> frames,
				ActiveSubscriptions.Opened::close);
	}

	/**
	 * Whether a subscriber receives an event: decided as the follower fans it out, so
	 * that the updates it does not select are never queued for its connection.
	 */
	private boolean receives(Followed followed, Subscriber subscriber) {
		Update update = followed.encoded(this.hub.encoder()).update();
		return update != null && subscriber.receives(update);
	}

	private Frame frame(Followed followed) {
		if (followed.isHeartbeat()) {
			return Frame.HEARTBEAT;
		}
		if (followed.event() == null) {
			// A note of the follower's (a position it no longer has): the response's
			// Last-Event-ID said so already.
			return null;
		}
		// The follower queued only the updates the subscriber receives.
		return followed.encoded(this.hub.encoder()).frame();
	}

	private List<TopicSelector> selectors(List<String> values) {
		if (values == null || values.isEmpty()) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					"Name the topics to subscribe to: ?topic=<selector>, repeatable; a selector is *, a topic "
							+ "or a URI template");
		}
		if (values.size() > this.properties.maxSelectors()) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					"A subscription has at most " + this.properties.maxSelectors()
							+ " topic selectors (streamgate.mercure.max-selectors); it has " + values.size());
		}
		List<TopicSelector> selectors = new ArrayList<>(values.size());
		for (String value : values) {
			if (value.length() > MercureProperties.MAX_SELECTOR_LENGTH) {
				throw new StreamgateException(ProblemType.INVALID_PARAMETER,
						"A topic selector has " + MercureProperties.MAX_SELECTOR_LENGTH + " characters at most");
			}
			selectors.add(TopicSelector.of(value));
		}
		return selectors;
	}

	/**
	 * The id to resume after: the {@code Last-Event-ID} header, else the
	 * {@code lastEventID} query parameter (or its older spellings).
	 */
	private static String lastEventId(ServerHttpRequest request) {
		String header = request.getHeaders().getFirst("Last-Event-ID");
		if (header != null && !header.isEmpty()) {
			return header;
		}
		for (String name : List.of("lastEventID", "Last-Event-ID", "last-event-id")) {
			String value = request.getQueryParams().getFirst(name);
			if (value != null && !value.isEmpty()) {
				return value;
			}
		}
		return null;
	}

	@PostMapping(path = PATH)
	@Operation(summary = "Publish a Mercure update",
			description = "An application/x-www-form-urlencoded form: topic (repeatable: the first is the update's "
					+ "topic, the others alternates), data, private, id, type, retry. 200 with the update's id as "
					+ "text/plain once Kafka has it.",
			requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true,
					content = @Content(mediaType = MediaType.APPLICATION_FORM_URLENCODED_VALUE,
							schema = @Schema(implementation = PublicationForm.class))))
	@ApiResponse(responseCode = "200", description = "The update's id",
			content = @Content(mediaType = MediaType.TEXT_PLAIN_VALUE, schema = @Schema(type = "string")))
	@ProblemResponses({ 400, 401, 403, 413, 415, 503 })
	public Mono<ResponseEntity<String>> publish(ServerWebExchange exchange) {
		ServerHttpRequest request = exchange.getRequest();
		MediaType type = request.getHeaders().getContentType();
		if (type == null || !MediaType.APPLICATION_FORM_URLENCODED.isCompatibleWith(type)) {
			throw new StreamgateException(ProblemType.UNSUPPORTED_MEDIA_TYPE,
					"A publication is an application/x-www-form-urlencoded form");
		}
		Presented presented = this.tokens.presented(request);
		if (presented == null) {
			throw HubTokens.required("A publisher's token is required: Authorization: Bearer, the "
					+ this.tokens.cookie() + " cookie or the " + HubTokens.QUERY + " query parameter");
		}
		if (presented.fromCookie()) {
			checkOrigin(request);
		}
		int max = (int) Math.min(Integer.MAX_VALUE, this.properties.maxUpdate().toBytes());
		Mono<Map<String, List<String>>> form = DataBufferUtils.join(request.getBody(), max).map((buffer) -> {
			try {
				return buffer.toString(StandardCharsets.UTF_8);
			}
			finally {
				DataBufferUtils.release(buffer);
			}
		})
			.defaultIfEmpty("")
			.map(HubController::form)
			.onErrorMap(DataBufferLimitException.class, (ex) -> new StreamgateException(ProblemType.PAYLOAD_TOO_LARGE,
					"A publication has " + max + " bytes at most (streamgate.mercure.max-update)"));
		return this.tokens.publisher(presented.token())
			.zipWith(form)
			.flatMap((both) -> this.hub.publish(update(both.getT2(), both.getT1())))
			.map((id) -> ResponseEntity.ok().contentType(MediaType.TEXT_PLAIN).body(id));
	}

	/** The update a form asks for, once the token may publish it. */
	private static Update update(Map<String, List<String>> form, Claims claims) {
		List<String> topics = form.getOrDefault("topic", List.of());
		if (topics.isEmpty() || topics.stream().anyMatch(String::isEmpty)) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					"A publication names its topic: topic=<topic>, repeatable for alternate topics");
		}
		String id = single(form, "id");
		if (id != null && id.isEmpty()) {
			id = null;
		}
		if (id != null && (id.startsWith("#") || hasBreak(id) || id.indexOf('\0') >= 0)) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					"An update's id does not start with # (the hub's own ids may) and has no line break");
		}
		if (MercureHub.EARLIEST.equals(id)) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					"'earliest' is no update id: it asks a subscriber's resume for the whole history");
		}
		String type = single(form, "type");
		if (type != null && hasBreak(type)) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER, "An update's type has no line break");
		}
		String retryText = single(form, "retry");
		Long retry = null;
		if (retryText != null && !retryText.isEmpty()) {
			if (!retryText.matches("[0-9]{1,18}")) {
				throw new StreamgateException(ProblemType.INVALID_PARAMETER,
						"retry is the reconnection time in milliseconds, digits only; not '" + retryText + "'");
			}
			retry = Long.parseLong(retryText);
		}
		for (String topic : topics) {
			if (isReserved(topic)) {
				throw new StreamgateException(ProblemType.FORBIDDEN, "The topics under " + ActiveSubscriptions.PATH
						+ " are the hub's own: '" + topic + "' cannot be published to");
			}
		}
		if (claims.publish() == null) {
			throw new StreamgateException(ProblemType.FORBIDDEN,
					"The token's mercure claim has no publish selectors: it may not publish");
		}
		for (String topic : topics) {
			if (!TopicSelector.anyMatches(claims.publish(), List.of(topic))) {
				throw new StreamgateException(ProblemType.FORBIDDEN,
						"The token's publish selectors do not select '" + topic + "'");
			}
		}
		return new Update(id, List.copyOf(topics), single(form, "data"), form.containsKey("private"),
				(type != null && !type.isEmpty()) ? type : null, retry);
	}

	private static boolean hasBreak(String value) {
		return value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0;
	}

	/**
	 * Whether a topic is the hub's own: under its subscriptions path, relative or not.
	 */
	static boolean isReserved(String topic) {
		String path;
		try {
			URI uri = URI.create(topic);
			path = (uri.getRawPath() != null) ? uri.getRawPath() : topic;
		}
		catch (IllegalArgumentException ex) {
			path = topic;
		}
		return path.equals(ActiveSubscriptions.PATH) || path.startsWith(ActiveSubscriptions.PATH + "/");
	}

	private static String single(Map<String, List<String>> form, String name) {
		List<String> values = form.get(name);
		return (values == null || values.isEmpty()) ? null : values.get(0);
	}

	/** Parses an {@code application/x-www-form-urlencoded} body. */
	static Map<String, List<String>> form(String body) {
		Map<String, List<String>> form = new LinkedHashMap<>();
		if (body.isEmpty()) {
			return form;
		}
		for (String pair : body.split("&")) {
			if (pair.isEmpty()) {
				continue;
			}
			int equals = pair.indexOf('=');
			String name = decode((equals < 0) ? pair : pair.substring(0, equals));
			String value = (equals < 0) ? "" : decode(pair.substring(equals + 1));
			form.computeIfAbsent(name, (key) -> new ArrayList<>()).add(value);
		}
		return form;
	}

	private static String decode(String text) {
		try {
			return URLDecoder.decode(text, StandardCharsets.UTF_8);
		}
		catch (IllegalArgumentException ex) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					"The form is not application/x-www-form-urlencoded: " + ex.getMessage());
		}
	}

	/**
	 * A publication with the cookie must come from a page of the hub's origin, or of one
	 * of {@code streamgate.mercure.publish-origins}: another site's page would otherwise
	 * publish with the visitor's cookie.
	 */
	private void checkOrigin(ServerHttpRequest request) {
		String origin = request.getHeaders().getOrigin();
		if (origin == null) {
			String referer = request.getHeaders().getFirst(HttpHeaders.REFERER);
			if (referer != null) {
				try {
					URI uri = URI.create(referer);
					origin = uri.getScheme() + "://" + uri.getRawAuthority();
				}
				catch (IllegalArgumentException ex) {
					origin = null;
				}
			}
		}
		URI self = request.getURI();
		String own = self.getScheme() + "://" + self.getRawAuthority();
		if (origin == null || !(origin.equals(own) || this.properties.publishOrigins().contains(origin))) {
			throw new StreamgateException(ProblemType.FORBIDDEN,
					"A publication with the " + this.tokens.cookie()
							+ " cookie comes from a page of the hub's origin or of streamgate.mercure.publish-origins; "
							+ "this one's origin is " + ((origin != null) ? "'" + origin + "'" : "unknown"));
		}
	}

	private record Accepted(Claims claims, Topic topic) {
	}

	/**
	 * The publication form, as the API document describes it.
	 *
	 * @param topic the update's topic, then its alternates
	 * @param data the content
	 * @param isPrivate present for a private update
	 * @param id the update's id; the hub makes one when absent
	 * @param type the SSE event type
	 * @param retry the reconnection time in milliseconds
	 */
	@Schema(name = "MercurePublication", requiredProperties = { "topic" })
	record PublicationForm(@ArraySchema(minItems = 1) List<String> topic, String data,
			@Schema(name = "private") String isPrivate, @Schema(pattern = "^[^#\\r\\n].*") String id, String type,
			@Schema(pattern = "^[0-9]+$") String retry) {
	}

}
