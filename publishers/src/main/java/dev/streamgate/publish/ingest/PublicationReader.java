package dev.streamgate.publish.ingest;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

import dev.streamgate.core.cloudevents.CloudEvents;
import dev.streamgate.core.event.EventAttributes;
import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.topic.PayloadSchemas;
import dev.streamgate.core.topic.PayloadType;
import dev.streamgate.core.topic.Topic;

/**
 * Reads what a publish request holds, whatever its form: one JSON value, a batch of them
 * (NDJSON), or CloudEvents (structured, a structured batch, binary); each publication
 * checked as JSON and against the topic's schema, before anything is published.
 */
final class PublicationReader {

	static final MediaType NDJSON = MediaType.parseMediaType("application/x-ndjson");

	private static final MediaType CLOUDEVENT = MediaType.parseMediaType(CloudEvents.STRUCTURED);

	private static final MediaType CLOUDEVENT_BATCH = MediaType.parseMediaType(CloudEvents.BATCH);

	private PublicationReader() {
	}

	/**
	 * The form of a request's body.
	 * @param headers the request's headers
	 * @return the form
	 * @throws StreamgateException (415) for a content type that is none of them
	 */
	static Form form(HttpHeaders headers) {
		MediaType type = headers.getContentType();
		if (type != null && CLOUDEVENT_BATCH.isCompatibleWith(type)) {
			return Form.CLOUDEVENT_BATCH;
		}
		if (type != null && CLOUDEVENT.isCompatibleWith(type)) {
			return Form.CLOUDEVENT;
		}
		if (type != null && NDJSON.isCompatibleWith(type)) {
			return Form.NDJSON;
		}
		if (type != null && (MediaType.APPLICATION_JSON.isCompatibleWith(type)
				|| type.getSubtypeSuffix() != null && type.getSubtypeSuffix().equals("json"))) {
			return (headers.getFirst("ce-specversion") != null) ? Form.CLOUDEVENT_BINARY : Form.JSON;
		}
		throw new StreamgateException(ProblemType.UNSUPPORTED_MEDIA_TYPE,
				"Send application/json (one publication), application/x-ndjson (a batch), or CloudEvents ("
						+ CloudEvents.STRUCTURED + ", " + CloudEvents.BATCH + ", or ce-* headers), not "
						+ ((type != null) ? type : "a body without Content-Type"));
	}

	/**
	 * The publications of a request.
	 * @param topic the topic
	 * @param form the body's form
	 * @param body the body
	 * @param headers the request's headers (binary CloudEvents)
	 * @param query the type and key of the query string
	 * @return the publications, checked
	 * @throws StreamgateException (400) naming what is wrong and where
	 */
	static List<CloudEvents.Publication> read(Topic topic, Form form, byte[] body, HttpHeaders headers,
			EventAttributes query) {
		if (body.length == 0) {
			throw new StreamgateException(ProblemType.MISSING_BODY, "A publication needs a JSON body");
		}
		List<CloudEvents.Publication> publications = switch (form) {
			case JSON -> {
				check(body, null);
				yield List.of(new CloudEvents.Publication(body, query));
			}
			case NDJSON -> lines(body).stream().map((line) -> new CloudEvents.Publication(line, query)).toList();
			case CLOUDEVENT, CLOUDEVENT_BATCH, CLOUDEVENT_BINARY -> cloudEvents(topic, form, body, headers, query);
		};
		matchSchema(topic, publications, form.isBatch());
		return publications;
	}

	private static List<CloudEvents.Publication> cloudEvents(Topic topic, Form form, byte[] body, HttpHeaders headers,
			EventAttributes query) {
		if (topic.payloadType() != PayloadType.EVENT) {
			throw new StreamgateException(ProblemType.INVALID_CLOUDEVENT, "Topic '" + topic.id()
					+ "' is a snapshot topic: publish its whole documents as application/json, not as CloudEvents");
		}
		if (query != EventAttributes.NONE) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					"A CloudEvent names its own type (and key, in its partitionkey extension): "
							+ "send no type or key in the query");
		}
		if (form == Form.CLOUDEVENT_BINARY) {
			Map<String, String> byName = new LinkedHashMap<>();
			headers.forEach((name, values) -> byName.put(name.toLowerCase(Locale.ROOT), values.get(0)));
			return List.of(CloudEvents.readBinary(byName, body));
		}
		return CloudEvents.readStructured(body, form == Form.CLOUDEVENT_BATCH);
	}

	private static List<byte[]> lines(byte[] body) {
		List<byte[]> lines = new ArrayList<>();
		int start = 0;
		int number = 0;
		for (int i = 0; i <= body.length; i++) {
			if (i == body.length || body[i] == '\n') {
				number++;
				int end = (i > start && body[i - 1] == '\r') ? i - 1 : i;
				byte[] line = Arrays.copyOfRange(body, start, end);
				if (!new String(line, StandardCharsets.UTF_8).isBlank()) {
					check(line, number);
					lines.add(line);
				}
				start = i + 1;
			}
		}
		if (lines.isEmpty()) {
			throw new StreamgateException(ProblemType.MISSING_BODY, "The batch holds no JSON line");
		}
		return lines;
	}

	/** Each publication must match the topic's schema, when it declares one. */
	private static void matchSchema(Topic topic, List<CloudEvents.Publication> publications, boolean batch) {
		if (topic.schema() == null) {
			return;
		}
		for (int i = 0; i < publications.size(); i++) {
			List<StreamgateException.FieldError> errors = PayloadSchemas.validate(topic.schema(),
					publications.get(i).data());
			if (!errors.isEmpty()) {
				String where = batch ? "Publication " + (i + 1) + " of the batch" : "The publication";
				throw new StreamgateException(ProblemType.INVALID_PUBLICATION, where + " does not match the schema of '"
						+ topic.id() + "': " + PayloadSchemas.describe(errors))
					.withErrors(errors);
			}
		}
	}

	private static void check(byte[] json, Integer line) {
		try {
			JsonPatches.check(json);
		}
		catch (IllegalArgumentException ex) {
			throw new StreamgateException(ProblemType.MALFORMED_JSON,
					((line != null) ? "Line " + line + " is not valid JSON: " : "The body is not valid JSON: ")
							+ ex.getMessage().replaceAll(" \\(start marker at \\[.*?\\]\\)", ""));
		}
	}

	/** The forms a publish request's body may take. */
	enum Form {

		JSON, NDJSON, CLOUDEVENT, CLOUDEVENT_BATCH, CLOUDEVENT_BINARY;

		/**
		 * Whether the body may hold several publications (the answer lists their ids).
		 * @return true for batches
		 */
		boolean isBatch() {
			return this == NDJSON || this == CLOUDEVENT_BATCH;
		}

	}

}
