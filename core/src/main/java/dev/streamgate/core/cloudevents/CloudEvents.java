package dev.streamgate.core.cloudevents;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.core.format.EventDeserializationException;
import io.cloudevents.http.HttpMessageFactory;
import io.cloudevents.jackson.JsonFormat;
import io.cloudevents.rw.CloudEventRWException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventAttributes;
import dev.streamgate.core.filter.EventTypes;
import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.problem.JsonErrors;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;

/**
 * CloudEvents 1.0 in and out, through the CloudEvents Java SDK: publications in the
 * structured mode ({@code application/cloudevents+json}, one event or a batch) or the
 * binary mode ({@code ce-*} headers, the body as data), and deliveries in either mode.
 * <p>
 * An ingested event's data is the publication (it must be JSON); its {@code type} is the
 * event type, its {@code partitionkey} extension (CloudEvents partitioning) the key;
 * every attribute is kept in a Kafka record header as the CloudEvents Kafka binding names
 * it ({@code ce_id}, {@code ce_source}, ..., {@code content-type}), so that Kafka
 * consumers of a dedicated topic read the events as binary-mode CloudEvents. A delivered
 * event takes the attributes it came with, and those it lacks from streamgate: id
 * {@code <topic>:<cursor>}, source {@code /streamgate/topics/<topic>}, type
 * {@code dev.streamgate.<event|snapshot|patch|problem>}, time its publication time; the
 * {@code streamgatecursor} extension carries its cursor, the {@code traceparent} and
 * {@code tracestate} extensions (distributed tracing) the trace it was published in.
 */
public final class CloudEvents {

	/** The structured mode's content type. */
	public static final String STRUCTURED = JsonFormat.CONTENT_TYPE;

	/** The structured mode's batch content type. */
	public static final String BATCH = "application/cloudevents-batch+json";

	/** The extension that carries a delivered event's cursor. */
	public static final String CURSOR_EXTENSION = "streamgatecursor";

	private static final String PARTITION_KEY = "partitionkey";

	private static final String KAFKA_PREFIX = "ce_";

	/** The attributes a delivered event is built with before the ones it kept. */
	private static final Set<String> BUILT = Set.of("id", "source", "type", "time", "specversion", "datacontenttype");

	private static final JsonFormat FORMAT = new JsonFormat();

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private CloudEvents() {
	}

	/**
	 * A publication in the structured mode.
	 * @param body one CloudEvent, or with {@code batch} a JSON array of them
	 * @param batch whether the body is a batch
	 * @return each event's data and attributes
	 * @throws StreamgateException (400 invalid-cloudevent) naming what is missing or
	 * wrong
	 */
	public static List<Publication> readStructured(byte[] body, boolean batch) {
		JsonNode json;
		try {
			json = JSON.readTree(body);
		}
		catch (JacksonException ex) {
			throw invalid(((batch) ? "The batch" : "The CloudEvent") + " is not JSON: " + JsonErrors.syntax(ex));
		}
		if (!batch) {
			return List.of(publication(deserialize(json, "The CloudEvent")));
		}
		if (json == null || !json.isArray() || json.isEmpty()) {
			throw invalid("A CloudEvents batch is a JSON array of at least one event");
		}
		List<Publication> publications = new ArrayList<>(json.size());
		for (int i = 0; i < json.size(); i++) {
			publications.add(publication(deserialize(json.get(i), "Event " + (i + 1))));
		}
		return publications;
	}

	/**
	 * A publication in the binary mode.
	 * @param headers the request's headers, by name (any case)
	 * @param body the event's data
	 * @return its data and attributes
	 * @throws StreamgateException (400 invalid-cloudevent) naming what is missing or
	 * wrong
	 */
	public static Publication readBinary(Map<String, String> headers, byte[] body) {
		try {
			return publication(HttpMessageFactory.createReader(headers, body).toEvent());
		}
		catch (CloudEventRWException | IllegalStateException ex) {
			throw invalid("The ce-* headers are no CloudEvent: " + ex.getMessage());
		}
	}

	private static CloudEvent deserialize(JsonNode json, String what) {
		if (json == null || !json.isObject()) {
			throw invalid(what + " is no CloudEvent 1.0: a CloudEvent is a JSON object, not "
					+ ((json == null || json.isNull()) ? "null" : json.getNodeType().name().toLowerCase(Locale.ROOT)));
		}
		try {
			return FORMAT.deserialize(JSON.writeValueAsBytes(json));
		}
		catch (EventDeserializationException | CloudEventRWException | IllegalStateException ex) {
			throw invalid(what + " is no CloudEvent 1.0: " + message(ex));
		}
	}

	private static String message(Exception ex) {
		Throwable cause = ex;
		while (cause.getCause() != null && cause.getCause() != cause) {
			cause = cause.getCause();
		}
		return (cause.getMessage() != null) ? cause.getMessage() : ex.toString();
	}

	private static Publication publication(CloudEvent event) {
		String contentType = event.getDataContentType();
		if (contentType != null && !contentType.startsWith("application/json") && !contentType.contains("+json")) {
			throw invalid("The data of CloudEvent '" + event.getId() + "' is " + contentType
					+ ": streamgate topics carry JSON (datacontenttype application/json or absent)");
		}
		byte[] data = (event.getData() != null) ? event.getData().toBytes() : "null".getBytes(StandardCharsets.UTF_8);
		try {
			JsonPatches.check(data);
		}
		catch (IllegalArgumentException ex) {
			throw invalid("The data of CloudEvent '" + event.getId() + "' is not JSON: " + ex.getMessage());
		}
		String type;
		try {
			type = EventTypes.name(event.getType());
		}
		catch (StreamgateException ex) {
			throw invalid("The type '" + event.getType() + "' is no streamgate event type: 1 to "
					+ EventTypes.MAX_LENGTH + " letters, digits and . _ - : / +");
		}
		Map<String, String> headers = new LinkedHashMap<>();
		for (String name : event.getAttributeNames()) {
			Object value = event.getAttribute(name);
			if (value != null && !name.equals("type") && !name.equals("datacontenttype")) {
				headers.put(KAFKA_PREFIX + name, text(value));
			}
		}
		for (String name : event.getExtensionNames()) {
			Object value = event.getExtension(name);
			if (value != null) {
				headers.put(KAFKA_PREFIX + name, text(value));
			}
		}
		headers.put("content-type", "application/json");
		Object key = event.getExtension(PARTITION_KEY);
		return new Publication(data, new EventAttributes(type, (key != null) ? text(key) : null, headers));
	}

	private static String text(Object value) {
		if (value instanceof OffsetDateTime time) {
			return time.toInstant().toString();
		}
		return value.toString();
	}

	/**
	 * An event as one CloudEvent in the structured mode.
	 * @param topicId the topic
	 * @param cursor the cursor after the event
	 * @param kind what the record is ({@code event}, {@code snapshot}, ...)
	 * @param event the event, for its attributes and time
	 * @param data the JSON delivered as data
	 * @return the {@code application/cloudevents+json} bytes
	 */
	public static byte[] writeStructured(String topicId, String cursor, String kind, Event event, byte[] data) {
		return FORMAT.serialize(build(topicId, cursor, kind, event, data));
	}

	/**
	 * An event as the headers of the binary mode over HTTP; the data is the body.
	 * @param topicId the topic
	 * @param cursor the cursor after the event
	 * @param kind what the record is
	 * @param event the event, for its attributes and time
	 * @param data the JSON delivered as data
	 * @return the {@code ce-*} headers and content type, by name
	 */
	public static Map<String, String> writeBinaryHeaders(String topicId, String cursor, String kind, Event event,
			byte[] data) {
		Map<String, String> headers = new LinkedHashMap<>();
		HttpMessageFactory.createWriter(headers::put, (body) -> {
		}).writeBinary(build(topicId, cursor, kind, event, data));
		return headers;
	}

	private static CloudEvent build(String topicId, String cursor, String kind, Event event, byte[] data) {
		Map<String, String> kept = (event != null) ? event.attributes().headers() : Map.of();
		String type = (event != null && event.attributes().type() != null) ? event.attributes().type()
				: "dev.streamgate." + kind;
		Instant time = (event != null) ? event.publishedAt() : Instant.now();
		CloudEventBuilder builder = CloudEventBuilder.v1()
			.withId(kept.getOrDefault(KAFKA_PREFIX + "id", topicId + ":" + cursor))
			.withSource(URI.create(kept.getOrDefault(KAFKA_PREFIX + "source", "/streamgate/topics/" + topicId)))
			.withType(type)
			.withTime(OffsetDateTime.parse(kept.getOrDefault(KAFKA_PREFIX + "time", time.toString()))
				.withOffsetSameInstant(ZoneOffset.UTC))
			.withDataContentType("application/json")
			.withData(data)
			.withExtension(CURSOR_EXTENSION, cursor);
		kept.forEach((name, value) -> {
			if (name.equals("traceparent") || name.equals("tracestate")) {
				// The CloudEvents distributed tracing extension: the trace it was
				// published in.
				builder.withExtension(name, value);
				return;
			}
			String attribute = name.startsWith(KAFKA_PREFIX) ? name.substring(KAFKA_PREFIX.length()) : null;
			if (attribute == null || BUILT.contains(attribute)) {
				return;
			}
			switch (attribute) {
				case "subject" -> builder.withSubject(value);
				case "dataschema" -> builder.withDataSchema(URI.create(value));
				default -> {
					if (attribute.matches("[a-z0-9]{1,20}")) {
						builder.withExtension(attribute, value);
					}
				}
			}
		});
		return builder.build();
	}

	private static StreamgateException invalid(String detail) {
		return new StreamgateException(ProblemType.INVALID_CLOUDEVENT, detail);
	}

	/**
	 * One ingested CloudEvent.
	 *
	 * @param data its data, the publication's JSON
	 * @param attributes its type, key and attributes as Kafka headers
	 */
	public record Publication(byte[] data, EventAttributes attributes) {
	}

}
