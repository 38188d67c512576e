package dev.streamgate.subscribe.sse;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import dev.streamgate.core.event.EventType;
import dev.streamgate.core.filter.Selection;
import dev.streamgate.core.problem.ProblemJson;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.web.Connections;
import dev.streamgate.core.web.ProblemResponses;
import dev.streamgate.core.web.RequestAttributes;
import dev.streamgate.core.web.StreamAccessLog;
import dev.streamgate.core.web.SubscribeAccess;
import dev.streamgate.core.web.TokenNotice;
import dev.streamgate.subscribe.follow.ClientBuffer;
import dev.streamgate.subscribe.follow.ClientBuffers;
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

	private final StreamLimits limits;

	private final SubscribeAccess access;

	private final ClientBuffers clientBuffers;

	private final StreamAccessLog accessLog;

	StreamController(TopicStore topics, TopicFollowers followers, SubscribeAccess access, MeterRegistry meters,
			SseProperties properties, ClientBuffers clientBuffers, ObjectProvider<StreamAccessLog> accessLog) {
		this.access = access;
		this.clientBuffers = clientBuffers;
		this.accessLog = accessLog.getIfAvailable(() -> StreamAccessLog.OFF);
		this.limits = new StreamLimits(properties.maxStreams(), properties.maxStreamsPerClient());
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
		return respond(exchange,
				(eventLoop, buffer) -> follow(topic, subscriptionMode, selection, from, encoder, eventLoop, buffer)
					.doOnNext((frame) -> {
						if (frame.carriesEvent()) {
							count.increment();
						}
					}),
				Frame::named);
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
			return respond(exchange, (eventLoop, buffer) -> stream.open(retryFrame(), eventLoop, buffer),
					TopicsEncoder::connection);
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

	/**
	 * Writes a stream: its frames once its topics can be followed (an error before is a
	 * problem response), within the limits of streams, until the connection closes or the
	 * token expires; a {@code token-expiring} notice goes out before it does.
	 * @param exchange the request
	 * @param follow the frames on a connection's event loop, once they can start, held in
	 * the connection's buffer
	 * @param connectionFrame writes a frame about the stream itself, by SSE event name
	 * (the token expired, or expires soon)
	 * @return completes when the stream ends
	 */
	private Mono<Void> respond(ServerWebExchange exchange, BiFunction<Executor, ClientBuffer, Flux<Frame>> follow,
			BiFunction<String, byte[], Frame> connectionFrame) {
		String client = clientAddress(exchange);
		ServerHttpResponse response = exchange.getResponse();
		response.getHeaders().setContentType(MediaType.TEXT_EVENT_STREAM);
		response.getHeaders().setCacheControl("no-cache");
		// NGINX: pass each event through at once.
		response.getHeaders().set("X-Accel-Buffering", "no");
		response.getHeaders().add(HttpHeaders.VARY, HttpHeaders.ACCEPT_ENCODING);
		StreamCompressor.Encoding encoding = StreamCompressor.Encoding
			.negotiate(exchange.getRequest().getHeaders().get(HttpHeaders.ACCEPT_ENCODING));
		StreamCompressor compressor = (encoding != null)
				? new StreamCompressor(encoding, this.properties.compressionLevel()) : null;
		if (encoding != null) {
			response.getHeaders().set(HttpHeaders.CONTENT_ENCODING, encoding.token());
		}
		DataBufferFactory buffers = response.bufferFactory();
		// The stream is counted from its subscription to its end: a connection that
		// closes before the response is written (during an asynchronous token check,
		// say) never subscribes, so it is never counted. An error before the first frame
		// is still a problem response (429 over a limit).
		ClientBuffer held = this.clientBuffers.open(this.properties.clientQueue(), Connections.unwritten(exchange));
		Flux<Frame> frames = Flux.using(() -> {
			this.limits.acquire(client);
			return client;
		}, (counted) -> follow.apply(Connections.eventLoop(exchange), held)
			.takeUntilOther(Connections.closed(exchange)), (counted) -> {
				this.limits.release(counted);
				held.close();
			});
		Instant expiresAt = exchange.getAttribute(RequestAttributes.TOKEN_EXPIRES_AT);
		if (expiresAt != null) {
			// The client reconnects with a fresh token and its cursor. Only the expiry
			// says so: a stream that ends otherwise (topic deleted, shutdown) ends with
			// its own problem or none.
			Instant now = Instant.now();
			Duration left = Duration.between(now, expiresAt);
			AtomicBoolean expired = new AtomicBoolean();
			Sinks.Empty<Void> ended = Sinks.empty();
			Mono<Frame> notice = Mono.delay(SubscribeAccess.untilNotice(expiresAt, this.access.expiringNotice(), now))
				.map((tick) -> connectionFrame.apply(TokenNotice.EVENT, TokenNotice.json(expiresAt)))
				.takeUntilOther(ended.asMono());
			frames = Flux.merge(frames.doFinally((signal) -> ended.tryEmitEmpty()), notice)
				.takeUntilOther(
						Mono.delay(left.isNegative() ? Duration.ZERO : left).doOnNext((tick) -> expired.set(true)))
				.concatWith(Mono.fromSupplier(() -> expired.get()
						? connectionFrame.apply(EventType.PROBLEM.value(),
								ProblemJson.bytes(ProblemType.TOKEN_EXPIRED,
										"The token of this stream expired at " + expiresAt
												+ "; reconnect with a fresh token and the last event id",
										null))
						: null));
		}
		// writeWith flushes once the queue is drained: one flush for a burst, at once
		// for a lone event.
		long startedAt = System.nanoTime();
		long[] sent = { 0 };
		Flux<DataBuffer> written = frames.map((frame) -> {
			if (frame.carriesEvent()) {
				this.metrics.written(frame.publishedAt());
			}
			DataBuffer buffer = (compressor != null) ? Frame.buffer(compressor.next(frame), buffers, held)
					: frame.buffer(buffers, held);
			sent[0] += buffer.readableByteCount();
			return buffer;
		});
		if (compressor != null) {
			// A stream that ends (token expired, topic deleted, shutdown) ends its
			// compressed
			// stream too; one the client closed needs nothing more.
			written = written.concatWith(Mono.fromSupplier(() -> buffers.wrap(compressor.finish())));
		}
		return response.writeWith(written.doFinally((signal) -> {
			held.close();
			this.accessLog.ended(exchange.getRequest().getRemoteAddress(), exchange.getRequest().getURI(), 200, sent[0],
					startedAt);
		}));
	}

	private Frame retryFrame() {
		return Frame.retry(this.properties.retry().toMillis());
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

	private static String clientAddress(ServerWebExchange exchange) {
		InetSocketAddress remote = exchange.getRequest().getRemoteAddress();
		return (remote != null && remote.getAddress() != null) ? remote.getAddress().getHostAddress() : "unknown";
	}

}
