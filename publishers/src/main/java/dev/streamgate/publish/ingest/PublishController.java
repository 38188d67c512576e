package dev.streamgate.publish.ingest;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import dev.streamgate.core.cloudevents.CloudEvents;
import dev.streamgate.core.event.CursorFormat;
import dev.streamgate.core.event.EventAttributes;
import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.OutgoingEvent;
import dev.streamgate.core.event.TopicMeters;
import dev.streamgate.core.filter.EventTypes;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.storage.EventTypeCounts;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.PayloadType;
import dev.streamgate.core.topic.PublisherType;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.trace.EventTracing;
import dev.streamgate.core.web.Connections;
import dev.streamgate.core.web.ProblemResponses;

/**
 * The HTTP POST ingest: {@code POST /api/v1/publish/{topicId}}.
 * <p>
 * Everything is checked before anything is produced, and the answer is 202 only once
 * Kafka has acknowledged every record of the publication.
 */
@RestController
@ConditionalOnRole(Role.INGEST)
@Tag(name = "Publishing", description = "Publish events and documents (role ingest)")
public class PublishController {

	/** What a publication holds besides its body (request, records, answer), in bytes. */
	private static final long PER_PUBLICATION = 1024;

	/** The longest event key. */
	private static final int MAX_KEY = 256;

	private static final String IDEMPOTENCY_KEY = "Idempotency-Key";

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final TopicStore topics;

	private final EventPublisher publisher;

	private final IngestProperties properties;

	private final IdempotencyKeys idempotencyKeys;

	private final EventTypeCounts typeCounts;

	private final EventTracing tracing;

	private final MeterRegistry meters;

	private final InFlightPublications inFlight;

	private final Counter overloaded;

	public PublishController(TopicStore topics, EventPublisher publisher, IngestProperties properties,
			IdempotencyKeys idempotencyKeys, EventTypeCounts typeCounts, ObjectProvider<EventTracing> tracing,
			MeterRegistry meters) {
		this.topics = topics;
		this.tracing = tracing.getIfAvailable(() -> EventTracing.NONE);
		this.typeCounts = typeCounts;
		this.publisher = publisher;
		this.properties = properties;
		this.idempotencyKeys = idempotencyKeys;
		this.meters = meters;
		this.inFlight = new InFlightPublications(properties.maxInFlight().toBytes(), properties.maxWait());
		Gauge.builder("streamgate.ingest.in-flight", this.inFlight, InFlightPublications::held)
			.description("Bytes of publications between their request and Kafka's acknowledgement")
			.baseUnit("bytes")
			.register(meters);
		Gauge.builder("streamgate.ingest.waiting", this.inFlight, InFlightPublications::waiting)
			.description("Bytes of publications waiting for room under streamgate.ingest.max-in-flight")
			.baseUnit("bytes")
			.register(meters);
		this.overloaded = Counter.builder("streamgate.ingest.overloaded")
			.description("Publications refused with 503: no room under streamgate.ingest.max-in-flight within "
					+ "streamgate.ingest.max-wait")
			.register(meters);
	}

	@PostMapping(path = "/api/v1/publish/{topicId}", produces = MediaType.APPLICATION_JSON_VALUE)
	@Operation(summary = "Publish to an http-post topic",
			description = "A JSON body is one publication: an event, or the whole new document of a snapshot topic. "
					+ "application/x-ndjson is a batch, one JSON value a line, published all or nothing. Event "
					+ "topics also take CloudEvents 1.0: structured (application/cloudevents+json), a structured "
					+ "batch (application/cloudevents-batch+json, all or nothing) or binary (ce-* headers, the "
					+ "JSON body as data); the type is the event type, the partitionkey extension the key, and "
					+ "every attribute is kept in a Kafka header (ce_id, ce_source, ...).")
	@RequestBody(required = true,
			content = { @Content(mediaType = MediaType.APPLICATION_JSON_VALUE, schema = @Schema(type = "object")),
					@Content(mediaType = "application/x-ndjson", schema = @Schema(type = "string")),
					@Content(mediaType = CloudEvents.STRUCTURED, schema = @Schema(type = "object")),
					@Content(mediaType = CloudEvents.BATCH, schema = @Schema(type = "array")) })
	@ApiResponse(responseCode = "202", description = "Accepted: Kafka acknowledged every record",
			content = @Content(schema = @Schema(implementation = PublishResponse.class)))
	@ProblemResponses({ 400, 404, 409, 413, 415, 422, 503 })
	@ApiResponse(responseCode = "503",
			description = "kafka-unavailable, or overloaded: the node held streamgate.ingest.max-in-flight bytes of "
					+ "publications for streamgate.ingest.max-wait; nothing was published, retry after Retry-After")
	@Parameter(name = IDEMPOTENCY_KEY, in = ParameterIn.HEADER,
			description = "a retried publish with the same key (within streamgate.ingest.idempotency-window, "
					+ "on any ingest node) returns the first answer and publishes nothing; another body under a used key "
					+ "is 422 idempotency-key-reused; a retry while the first request is still being published "
					+ "on another node is 409 idempotency-key-in-use with Retry-After",
			schema = @Schema(type = "string", minLength = 1, maxLength = 255, pattern = "^[\\x21-\\x7e]+$"))
	@Parameter(name = "type", in = ParameterIn.QUERY,
			description = "the event type, e.g. order.created: subscribers may ask for types "
					+ "(types=order.*) and filter on it; event topics only",
			schema = @Schema(type = "string", minLength = 1, maxLength = EventTypes.MAX_LENGTH,
					pattern = "^[A-Za-z0-9._:/+-]+$"))
	@Parameter(name = "key", in = ParameterIn.QUERY,
			description = "the event key: events of one key keep their order on one partition; "
					+ "filters see it; event topics only",
			schema = @Schema(type = "string", minLength = 1, maxLength = MAX_KEY))
	public Mono<Void> publish(@PathVariable String topicId, ServerWebExchange exchange) {
		// The header and the query parameters are read here rather than bound as
		// arguments, and the answer is written here rather than returned: without
		// WebFlux's argument resolvers and return value handler, 200 publications a
		// second cost the event loops an eighth less CPU.
		ServerHttpRequest request = exchange.getRequest();
		String idempotencyKey = single(request.getHeaders().get(IDEMPOTENCY_KEY));
		String type = single(request.getQueryParams().get("type"));
		String key = single(request.getQueryParams().get("key"));
		Topic topic = topic(topicId);
		EventAttributes attributes = attributes(topic, type, key);
		PublicationReader.Form form = PublicationReader.form(request.getHeaders());
		long max = this.properties.maxPayload().toBytes();
		long declared = request.getHeaders().getContentLength();
		if (declared > max) {
			throw tooLarge(max);
		}
		long charge = ((declared >= 0) ? declared : max) + PER_PUBLICATION;
		return this.inFlight.hold(charge, () -> body(topic, topicId, idempotencyKey, attributes, form, exchange, max))
			// Kafka's acknowledgement arrives on its producer's one network thread, which
			// sends every publication's records: the answer is made on the connection's
			// event loop, not there.
			.publishOn(Connections.scheduler(exchange))
			.onErrorMap(InFlightPublications.Refused.class, this::overloaded)
			.flatMap((answer) -> answer.writeTo(exchange.getResponse()));
	}

	/**
	 * A header or query parameter as WebFlux would bind it to a {@code String}: its
	 * values joined with commas when it came more than once.
	 */
	private static String single(List<String> values) {
		if (values == null || values.isEmpty()) {
			return null;
		}
		return (values.size() == 1) ? values.get(0) : String.join(",", values);
	}

	private StreamgateException overloaded(InFlightPublications.Refused refused) {
		this.overloaded.increment();
		String why = refused.waited() ? "no room came within " + this.inFlight.maxWait().toMillis() + " ms"
				: "as many again already wait for room";
		return new StreamgateException(ProblemType.OVERLOADED,
				"This node holds as many publications as streamgate.ingest.max-in-flight allows ("
						+ this.inFlight.limit() + " bytes) and " + why + "; nothing was published. Retry later.")
			.withRetryAfter(Duration.ofSeconds(1));
	}

	/** A type and a key name events; the documents of a snapshot topic have neither. */
	private static EventAttributes attributes(Topic topic, String type, String key) {
		if (type == null && key == null) {
			return EventAttributes.NONE;
		}
		if (topic.payloadType() != PayloadType.EVENT) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER, "Topic '" + topic.id()
					+ "' is a snapshot topic: its publications are documents, without type or key");
		}
		if (key != null && (key.isEmpty() || key.length() > MAX_KEY)) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					"The key has 1 to " + MAX_KEY + " characters, not " + key.length())
				.withErrors(List.of(new StreamgateException.FieldError("key", "1 to " + MAX_KEY + " characters")));
		}
		return EventAttributes.of((type != null) ? EventTypes.name(type) : null, key);
	}

	private Mono<Answer> body(Topic topic, String topicId, String idempotencyKey, EventAttributes attributes,
			PublicationReader.Form form, ServerWebExchange exchange, long max) {
		return DataBufferUtils.join(exchange.getRequest().getBody(), (int) Math.min(max, Integer.MAX_VALUE))
			.onErrorMap(DataBufferLimitException.class, (ex) -> tooLarge(max))
			.map(PublishController::bytes)
			.defaultIfEmpty(new byte[0])
			.flatMap((body) -> {
				List<CloudEvents.Publication> publications = PublicationReader.read(topic, form, body,
						exchange.getRequest().getHeaders(), attributes);
				// A retry comes with another trace context: the fingerprint leaves it
				// out.
				List<CloudEvents.Publication> traced = traced(publications, this.tracing.publication(exchange));
				if (idempotencyKey == null) {
					return publish(topic, traced, form.isBatch()).map((response) -> new Answer(response, false));
				}
				return this.idempotencyKeys
					.answer(topicId, idempotencyKey, fingerprint(body, publications),
							() -> publish(topic, traced, form.isBatch()))
					.map((answer) -> new Answer(answer.response(), answer.replayed()));
			});
	}

	/** Each publication keeps the trace context of the request that published it. */
	private static List<CloudEvents.Publication> traced(List<CloudEvents.Publication> publications,
			Map<String, String> trace) {
		if (trace.isEmpty()) {
			return publications;
		}
		return publications.stream().map((publication) -> {
			EventAttributes attributes = publication.attributes();
			Map<String, String> headers = new LinkedHashMap<>(attributes.headers());
			headers.putAll(trace);
			return new CloudEvents.Publication(publication.data(),
					new EventAttributes(attributes.type(), attributes.key(), headers));
		}).toList();
	}

	/**
	 * A retry must name the same types, keys and CloudEvents attributes (binary mode) as
	 * well as send the same body.
	 */
	private static byte[] fingerprint(byte[] body, List<CloudEvents.Publication> publications) {
		if (publications.stream().allMatch((publication) -> publication.attributes() == EventAttributes.NONE)) {
			return body;
		}
		byte[] tail = publications.stream()
			.map((publication) -> "\u0000" + publication.attributes())
			.collect(java.util.stream.Collectors.joining())
			.getBytes(StandardCharsets.UTF_8);
		byte[] both = java.util.Arrays.copyOf(body, body.length + tail.length);
		System.arraycopy(tail, 0, both, body.length, tail.length);
		return both;
	}

	private Mono<PublishResponse> publish(Topic topic, List<CloudEvents.Publication> publications, boolean batch) {
		Mono<EventPublisher.Publication> published = (topic.payloadType() == PayloadType.EVENT)
				? this.publisher.publishEvents(topic,
						publications.stream()
							.map((publication) -> new OutgoingEvent(EventType.EVENT, publication.data(),
									publication.attributes()))
							.toList())
				: this.publisher.publish(topic, publications.stream().map(CloudEvents.Publication::data).toList());
		return published.map((publication) -> {
			Instant now = Instant.now();
			publications.stream()
				.filter((each) -> each.attributes().type() != null)
				.collect(java.util.stream.Collectors.groupingBy((each) -> each.attributes().type(),
						java.util.stream.Collectors.counting()))
				.forEach((eventType, count) -> this.typeCounts.add(topic, eventType, count, now));
			Counter.builder("streamgate.events.published")
				.description("Events appended to topics")
				.tag(TopicMeters.TAG, topic.id())
				.register(this.meters)
				.increment(publication.positions().size());
			CursorFormat cursors = CursorFormat.of(topic);
			List<String> ids = batch ? publication.positions().stream().map(cursors::format).toList() : null;
			return new PublishResponse(publication.id(), publication.changed(), ids);
		});
	}

	/**
	 * A 202 with its JSON body, written to the response as it is.
	 *
	 * @param response the body
	 * @param replayed whether it answers an earlier publication with the same idempotency
	 * key
	 */
	private record Answer(PublishResponse response, boolean replayed) {

		Mono<Void> writeTo(ServerHttpResponse http) {
			http.setStatusCode(HttpStatus.ACCEPTED);
			http.getHeaders().setContentType(MediaType.APPLICATION_JSON);
			if (this.replayed) {
				http.getHeaders().set("Idempotent-Replayed", "true");
			}
			byte[] json = JSON.writeValueAsBytes(this.response);
			http.getHeaders().setContentLength(json.length);
			return http.writeWith(Mono.just(http.bufferFactory().wrap(json)));
		}

	}

	private Topic topic(String topicId) {
		Topic topic = this.topics.require(topicId).topic();
		if (topic.publisher().type() != PublisherType.HTTP_POST) {
			throw new StreamgateException(ProblemType.PUBLISHER_MISMATCH, "Topic '" + topicId + "' is fed by its "
					+ topic.publisher().type() + " publisher; only http-post topics accept publications");
		}
		return topic;
	}

	private static StreamgateException tooLarge(long max) {
		return new StreamgateException(ProblemType.PAYLOAD_TOO_LARGE,
				"The body is larger than streamgate.ingest.max-payload (" + max + " bytes)");
	}

	private static byte[] bytes(DataBuffer buffer) {
		try {
			byte[] bytes = new byte[buffer.readableByteCount()];
			buffer.read(bytes);
			return bytes;
		}
		finally {
			DataBufferUtils.release(buffer);
		}
	}

}
