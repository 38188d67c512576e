package dev.streamgate.mercure;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.web.ProblemResponses;
import dev.streamgate.mercure.ActiveSubscriptions.Collection;
import dev.streamgate.mercure.ActiveSubscriptions.Subscription;
import dev.streamgate.mercure.HubTokens.Claims;
import dev.streamgate.mercure.HubTokens.Presented;

/**
 * Mercure's subscriptions API, for the whole cluster: {@code GET
 * /.well-known/mercure/subscriptions} lists the open subscriptions,
 * {@code .../subscriptions/{topic}} those of a topic selector, and
 * {@code .../subscriptions/{topic}/{subscriber}} one (the selector and the subscriber
 * escaped as query values). A subscriber's token whose {@code subscribe} selectors select
 * the request's path grants it; the API answers 404 while
 * {@code streamgate.mercure.subscriptions} is off.
 */
@RestController
@ConditionalOnRole(Role.MERCURE)
@Tag(name = "Mercure", description = "A Mercure hub (role mercure)")
public class SubscriptionsController {

	/** JSON-LD, Mercure's type for the API's documents. */
	static final MediaType JSON_LD = MediaType.parseMediaType("application/ld+json");

	private final ActiveSubscriptions subscriptions;

	private final HubTokens tokens;

	private final MercureProperties properties;

	SubscriptionsController(ActiveSubscriptions subscriptions, HubTokens tokens, MercureProperties properties) {
		this.subscriptions = subscriptions;
		this.tokens = tokens;
		this.properties = properties;
	}

	@GetMapping(path = { ActiveSubscriptions.PATH, ActiveSubscriptions.PATH + "/{topic}",
			ActiveSubscriptions.PATH + "/{topic}/{subscriber}" })
	@Operation(summary = "List the hub's active subscriptions",
			description = "The open subscriptions of every node, as Mercure's JSON-LD: all, those of one topic "
					+ "selector (/{topic}), or one (/{topic}/{subscriber}); the selector and the subscriber "
					+ "escaped as query values. Needs streamgate.mercure.subscriptions and a subscriber's token "
					+ "whose subscribe selectors select the request's path.")
	@ApiResponse(responseCode = "200", description = "The subscriptions, or the one asked for",
			content = @Content(mediaType = "application/ld+json", schema = @Schema(type = "object")))
	@ProblemResponses({ 400, 401, 403, 404, 503 })
	public Mono<ResponseEntity<Object>> list(ServerHttpRequest request) {
		if (!this.properties.subscriptions()) {
			throw new StreamgateException(ProblemType.NOT_FOUND,
					"Active subscriptions are off on this hub (streamgate.mercure.subscriptions)");
		}
		String rawPath = request.getPath().pathWithinApplication().value();
		List<String> segments = segments(rawPath);
		String requested = rawPath
				+ ((request.getURI().getRawQuery() != null) ? "?" + request.getURI().getRawQuery() : "");
		Presented presented = this.tokens.presented(request);
		if (presented == null) {
			throw HubTokens.required("The subscriptions API needs a subscriber's token: Authorization: Bearer, the "
					+ this.tokens.cookie() + " cookie or the " + HubTokens.QUERY + " query parameter");
		}
		return this.tokens.subscriber(presented.token())
			.doOnNext((claims) -> authorize(claims, requested))
			.then(this.subscriptions.list())
			.map((listing) -> ResponseEntity.ok()
				.contentType(JSON_LD)
				.cacheControl(CacheControl.noStore())
				.body(answer(listing, segments, rawPath)));
	}

	/** The collection, or the one subscription the path names. */
	private static Object answer(ActiveSubscriptions.Listing listing, List<String> segments, String rawPath) {
		TopicSelector topic = segments.isEmpty() ? null : TopicSelector.of(segments.get(0));
		List<Subscription> selected = listing.subscriptions()
			.stream()
			.filter((subscription) -> topic == null || topic.matches(subscription.topic()))
			.filter((subscription) -> segments.size() < 2 || subscription.subscriber().equals(segments.get(1)))
			.toList();
		if (segments.size() < 2) {
			return new Collection(ActiveSubscriptions.CONTEXT, rawPath, "Subscriptions", listing.lastEventId(),
					selected);
		}
		if (selected.isEmpty()) {
			throw new StreamgateException(ProblemType.NOT_FOUND,
					"No open subscription of '" + segments.get(1) + "' to '" + segments.get(0) + "'");
		}
		return selected.get(0).withContext(ActiveSubscriptions.CONTEXT).withLastEventId(listing.lastEventId());
	}

	private static void authorize(Claims claims, String requested) {
		if (claims.subscribe() == null || !TopicSelector.anyMatches(claims.subscribe(), List.of(requested))) {
			throw new StreamgateException(ProblemType.FORBIDDEN,
					"The token's subscribe selectors do not select '" + requested + "'");
		}
	}

	/** The unescaped topic and subscriber of the path, as many as it has. */
	private static List<String> segments(String rawPath) {
		String rest = rawPath.substring(ActiveSubscriptions.PATH.length());
		if (rest.isEmpty() || rest.equals("/")) {
			return List.of();
		}
		String[] parts = rest.substring(1).split("/", -1);
		if (parts.length > 2 || List.of(parts).contains("")) {
			throw new StreamgateException(ProblemType.NOT_FOUND,
					"The subscriptions API has " + ActiveSubscriptions.PATH + ", .../{topic} and "
							+ ".../{topic}/{subscriber}; a topic or a subscriber with a slash is escaped (%2F)");
		}
		try {
			return List.of(parts).stream().map((part) -> URLDecoder.decode(part, StandardCharsets.UTF_8)).toList();
		}
		catch (IllegalArgumentException ex) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					"The path's topic or subscriber is not escaped as a query value: " + ex.getMessage());
		}
	}

}
