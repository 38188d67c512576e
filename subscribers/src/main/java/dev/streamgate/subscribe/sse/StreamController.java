package dev.streamgate.subscribe.sse;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.streamgate.core.filter.Selection;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.web.ProblemResponses;
import dev.streamgate.core.web.RequestAttributes;
import dev.streamgate.core.web.SubscribeAccess;
import dev.streamgate.subscribe.follow.ClientBuffer;
import dev.streamgate.subscribe.follow.DeliveryMetrics;
import dev.streamgate.subscribe.follow.Encoder;
import dev.streamgate.subscribe.follow.Resume;
import dev.streamgate.subscribe.follow.SlowSubscriberException;
import dev.streamgate.subscribe.follow.SubscribeParameters;
import dev.streamgate.subscribe.follow.TopicFollowers;

/**
 * Server-Sent Events streams: {@code GET /api/v1/stream/{topicId}} for one topic,
 * {@code GET /api/v1/stream?topic=a&topic=b} for several on one connection.
 * <p>
 * Everything is checked before the first byte; once the stream is open, errors are
 * {@code problem} events and the end of the stream.
 */
@RestController
@ConditionalOnRole(Role.STREAM)
@Tag(name = "Streaming", description = "Server-Sent Events streams (role sse)")
public class StreamController {

	private final TopicStore topics;

	/** The channel name of SSE streams, in metrics and topic status. */
	static final String CHANNEL = "sse";

	private static final String TYPES = SubscribeParameters.TYPES;

	/** The subtypes before a mode, in media types that ask for it. */
	private static final List<String> MODE_VENDORS = List.of("vnd.streamgate+", "vnd.axway.streams+");

	static final String SNAPSHOT_PATCH = "application/vnd.streamgate+snapshot-patch";

	static final String SNAPSHOT_ONLY = "application/vnd.streamgate+snapshot-only";

	static final String EVENT = "application/vnd.streamgate+event";

	static final String AXWAY_SNAPSHOT_PATCH = "application/vnd.axway.streams+snapshot-patch";

	static final String AXWAY_SNAPSHOT_ONLY = "application/vnd.axway.streams+snapshot-only";

	static final String AXWAY_EVENT = "application/vnd.axway.streams+event";

	private static final String FILTER = SubscribeParameters.FILTER;

	private static final String POINTER = SubscribeParameters.POINTER;

	private final TopicFollowers followers;

	private final SseProperties properties;

	private final DeliveryMetrics metrics;

	private final SubscribeAccess access;

	private final SseResponder responder;

	StreamController(TopicStore topics, TopicFollowers followers, SubscribeAccess access, MeterRegistry meters,
			SseProperties properties, SseResponder responder) {
		this.access = access;
		this.responder = responder;
		this.topics = topics;
		this.followers = followers;
		this.properties = properties;
		this.metrics = new DeliveryMetrics(CHANNEL, meters);
		FunctionCounter.builder("streamgate.sse.compressions", Deflated.COMPRESSIONS, LongAdder::sum)
			.description("Frames compressed for compressed streams: once per frame, whatever the number of "
					+ "connections that receive it")
			.register(meters);
	}

	@GetMapping(path = "/api/v1/stream/{topicId}",
			produces = { MediaType.TEXT_EVENT_STREAM_VALUE, SNAPSHOT_PATCH, SNAPSHOT_ONLY, EVENT, AXWAY_SNAPSHOT_PATCH,
					AXWAY_SNAPSHOT_ONLY, AXWAY_EVENT })
	@Operation(summary = "Stream a topic",
			description = "Events: snapshot, patch, event, problem (a problem JSON). Each data event has an id: its resume cursor. "
					+ "The stream starts with a retry line and sends a heartbeat comment every streamgate.sse.heartbeat. "
					+ "Accept-Encoding: gzip or deflate gives a compressed stream, each event flushed at once.")
	@ApiResponse(responseCode = "200", description = "The stream",
			content = @Content(mediaType = MediaType.TEXT_EVENT_STREAM_VALUE, schema = @Schema(type = "string")))
	@ProblemResponses({ 400, 401, 403, 404, 406, 429, 503 })
	public Mono<Void> stream(@PathVariable String topicId, @Parameter(
			description = "snapshot-patch, snapshot-only or event; default: the topic's default mode") @RequestParam(
					required = false) String mode,
			@Parameter(description = "resume after this cursor, or earliest") @RequestParam(
					required = false) String lastEventId,
			@Parameter(description = "resume after this cursor; wins over lastEventId") @RequestHeader(
					name = "Last-Event-ID", required = false) String lastEventIdHeader,
			@Parameter(description = TYPES) @RequestParam(required = false) String types,
			@Parameter(description = FILTER) @RequestParam(required = false) String filter,
			@Parameter(description = POINTER) @RequestParam(required = false) String pointer,
			@Parameter(description = "cloudevents: each data is the event as a structured CloudEvent 1.0 "
					+ "(its attributes around its data)") @RequestParam(required = false) String format,
			ServerWebExchange exchange) {
		Topic topic = this.topics.require(topicId).topic();
		Encoder<Frame> encoder = encoder(format);
		SubscriptionMode subscriptionMode = SubscribeParameters.mode(topic, mode(mode, exchange));
		Selection selection = SubscribeParameters.selection(topic, types, filter, pointer);
		Resume from = SubscribeParameters.resume(topic, resumeText(lastEventIdHeader, lastEventId));
		Counter count = this.metrics.delivered(topicId);
		return this.responder.respond(exchange, exchange.getAttribute(RequestAttributes.TOKEN_EXPIRES_AT),
				(eventLoop, buffer) -> follow(topic, subscriptionMode, selection, from, encoder, eventLoop, buffer)
					.doOnNext((frame) -> {
						if (frame.carriesEvent()) {
							count.increment();
						}
					}),
				Frame::named, this.metrics);
	}

	@GetMapping(path = "/api/v1/stream",
			produces = { MediaType.TEXT_EVENT_STREAM_VALUE, SNAPSHOT_PATCH, SNAPSHOT_ONLY, EVENT, AXWAY_SNAPSHOT_PATCH,
					AXWAY_SNAPSHOT_ONLY, AXWAY_EVENT })
	@Operation(summary = "Stream several topics",
			description = "One stream of the events of every topic named (?topic=a&topic=b): each data is "
					+ "{\"topic\": \"a\", \"data\": ...}, each id one cursor covering all the topics "
					+ "(a@<cursor>,b@<cursor>), and resuming from it gives exactly the events after it on every topic. "
					+ "Each topic must exist and be granted; the stream ends when one of them ends (deleted, cut off).")
	@ApiResponse(responseCode = "200", description = "The stream",
			content = @Content(mediaType = MediaType.TEXT_EVENT_STREAM_VALUE, schema = @Schema(type = "string")))
	@ProblemResponses({ 400, 401, 403, 404, 406, 429, 503 })
	public Mono<Void> streamTopics(
			@Parameter(description = "a topic id; repeat for each topic") @RequestParam(name = "topic",
					required = false) List<String> topicIds,
			@Parameter(
					description = "snapshot-patch, snapshot-only or event for every topic; default: each topic's default mode") @RequestParam(
							required = false) String mode,
			@Parameter(description = "resume after this stream cursor, or earliest") @RequestParam(
					required = false) String lastEventId,
			@Parameter(description = "resume after this stream cursor; wins over lastEventId") @RequestHeader(
					name = "Last-Event-ID", required = false) String lastEventIdHeader,
			@Parameter(description = TYPES + "; for every topic") @RequestParam(required = false) String types,
			@Parameter(description = FILTER + "; for every topic") @RequestParam(required = false) String filter,
			@Parameter(description = POINTER + "; for every topic") @RequestParam(required = false) String pointer,
			ServerWebExchange exchange) {
		List<String> ids = distinct(topicIds);
		String resume = resumeText(lastEventIdHeader, lastEventId);
		Map<String, String> cursors = "earliest".equals(resume) ? Map.of() : StreamCursor.parse(resume);
		return exchange.getPrincipal().map(Optional::of).defaultIfEmpty(Optional.empty()).flatMap((principal) -> {
			List<TopicsStream.Part> parts = new ArrayList<>(ids.size());
			for (String id : ids) {
				Topic topic = SubscribeParameters.topic(this.topics, this.access, principal.orElse(null), id);
				String cursor = "earliest".equals(resume) ? resume : cursors.get(id);
				parts.add(new TopicsStream.Part(topic, SubscribeParameters.mode(topic, mode(mode, exchange)),
						SubscribeParameters.selection(topic, types, filter, pointer),
						SubscribeParameters.resume(topic, cursor), this.metrics.delivered(id)));
			}
			TopicsStream stream = new TopicsStream(parts, this.followers, CHANNEL);
			return this.responder.respond(exchange, exchange.getAttribute(RequestAttributes.TOKEN_EXPIRES_AT),
					(eventLoop, buffer) -> stream.open(retryFrame(), eventLoop, buffer), TopicsEncoder::connection,
					this.metrics);
		});
	}

	private List<String> distinct(List<String> topicIds) {
		Set<String> ids = new LinkedHashSet<>();
		if (topicIds != null) {
			topicIds.stream().map(String::trim).filter((id) -> !id.isEmpty()).forEach(ids::add);
		}
		if (ids.isEmpty()) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					"Name the topics to stream: /api/v1/stream?topic=a&topic=b, or /api/v1/stream/{topicId} for one");
		}
		if (ids.size() > this.properties.maxTopics()) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER, "A stream has at most "
					+ this.properties.maxTopics() + " topics (streamgate.sse.max-topics); it names " + ids.size());
		}
		return new ArrayList<>(ids);
	}

	/**
	 * The mode asked for: the {@code mode} parameter, else the media type of the
	 * {@code Accept} header that names one
	 * ({@code application/vnd.streamgate+snapshot-only}, and Axway Streams'
	 * {@code application/vnd.axway.streams+...}, so that its clients move over
	 * unchanged); {@code null} for the topic's default.
	 */
	private static String mode(String parameter, ServerWebExchange exchange) {
		if (parameter != null && !parameter.isBlank()) {
			return parameter;
		}
		List<MediaType> accepted = new ArrayList<>(exchange.getRequest().getHeaders().getAccept());
		// The most wanted first; in the header's order when as wanted.
		accepted.sort(Comparator.comparingDouble(MediaType::getQualityValue).reversed());
		for (MediaType type : accepted) {
			String subtype = type.getSubtype();
			for (String vendor : MODE_VENDORS) {
				if ("application".equals(type.getType()) && subtype.startsWith(vendor)) {
					return subtype.substring(vendor.length());
				}
			}
		}
		return null;
	}

	private static String resumeText(String header, String query) {
		return (header != null && !header.isBlank()) ? header : query;
	}

	private Frame retryFrame() {
		return this.responder.retryFrame();
	}

	/** How each event is written: as published, or as a structured CloudEvent. */
	private static Encoder<Frame> encoder(String format) {
		if (format == null || format.isBlank()) {
			return SseEncoder.INSTANCE;
		}
		if ("cloudevents".equals(format)) {
			return CloudEventsSseEncoder.INSTANCE;
		}
		throw new StreamgateException(ProblemType.INVALID_PARAMETER,
				"format is cloudevents (each data a structured CloudEvent) or absent, not '" + format + "'");
	}

	/**
	 * The frames of one topic: the retry line once the subscription can start (an error
	 * before it is still a problem response), then the events.
	 */
	private Flux<Frame> follow(Topic topic, SubscriptionMode mode, Selection selection, Resume from,
			Encoder<Frame> encoder, Executor eventLoop, ClientBuffer buffer) {
		return Flux.using(() -> this.followers.acquire(topic),
				(follower) -> follower.open(CHANNEL, buffer, mode, selection, from, eventLoop)
					// The subscriber joins once the retry line is written (deferred: a
					// stream cancelled before then leaves no subscription behind).
					.flatMapMany(
							(events) -> Flux.concat(Flux.just(retryFrame()), events.map((e) -> e.encoded(encoder))))
					// Cut off for not keeping up: the stream ends, the client resumes.
					.onErrorResume(SlowSubscriberException.class, (ex) -> Flux.empty()),
				this.followers::release);
	}

}
