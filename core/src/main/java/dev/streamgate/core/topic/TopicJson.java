package dev.streamgate.core.topic;

import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.type.LogicalType;

import dev.streamgate.core.problem.JsonErrors;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException.FieldError;
import dev.streamgate.core.problem.StreamgateException;

/**
 * Topic documents to and from JSON: strictly for what clients send, leniently for what is
 * stored (so that an older node reads what a newer one wrote).
 */
public final class TopicJson {

	/** Fields that the registry sets and clients may not. */
	public static final Set<String> READ_ONLY = Set.of("createdAt", "updatedAt", "sharedPartition");

	private static final JsonMapper STRICT = JsonMapper.builder()
		.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, DeserializationFeature.FAIL_ON_TRAILING_TOKENS,
				DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
		.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
		.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
		.disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS, DateTimeFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
		.addModule(new SimpleModule("streamgate-durations").addSerializer(Duration.class, new DurationSerializer())
			.addDeserializer(Duration.class, new DurationDeserializer()))
		.withCoercionConfig(LogicalType.Integer,
				(config) -> config.setCoercion(CoercionInputShape.String, CoercionAction.Fail))
		.withCoercionConfig(LogicalType.Boolean,
				(config) -> config.setCoercion(CoercionInputShape.String, CoercionAction.Fail)
					.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail))
		.withCoercionConfig(LogicalType.Textual,
				(config) -> config.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
					.setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
					.setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
		.build();

	private static final JsonMapper LENIENT = STRICT.rebuild()
		.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
		.build();

	/** The fields of each kind of publisher but its type, from their records. */
	private static final Set<String> POLLER_FIELDS = fieldsOf(Publisher.HttpPoller.class);

	private static final Set<String> KAFKA_FIELDS = fieldsOf(Publisher.Kafka.class);

	/** What a write-only value reads as. */
	public static final String MASK = "******";

	private TopicJson() {
	}

	/**
	 * The mapper for client JSON: unknown fields, duplicate keys and loose coercions
	 * fail.
	 * @return the strict mapper
	 */
	public static JsonMapper strictMapper() {
		return STRICT;
	}

	/**
	 * Parses request bytes into a JSON tree.
	 * @param body the request body
	 * @return the tree
	 * @throws StreamgateException {@code malformed-json} when the body is not one JSON
	 * value
	 */
	public static JsonNode parseTree(byte[] body) {
		JsonNode tree;
		try {
			tree = STRICT.readTree(body);
		}
		catch (JacksonException ex) {
			throw new StreamgateException(ProblemType.MALFORMED_JSON,
					"The body is not valid JSON: " + JsonErrors.syntax(ex));
		}
		if (tree == null || tree.isMissingNode()) {
			throw new StreamgateException(ProblemType.MALFORMED_JSON, "The body holds no JSON value");
		}
		return tree;
	}

	/**
	 * Reads a topic a client sent, without defaults.
	 * @param tree the request document
	 * @return the topic
	 * @throws StreamgateException {@code invalid-topic} naming the offending field
	 */
	public static Topic fromRequest(JsonNode tree) {
		if (!tree.isObject()) {
			throw invalid(List.of(new FieldError("", "must be a JSON object")));
		}
		List<FieldError> readOnly = READ_ONLY.stream()
			.filter(tree::has)
			.map((field) -> new FieldError("/" + field, "is read-only"))
			.toList();
		if (!readOnly.isEmpty()) {
			throw invalid(readOnly);
		}
		JsonNode request = tree;
		if (tree.get("publisher") instanceof ObjectNode publisher) {
			List<FieldError> misplaced = publisherKind(publisher);
			if (!misplaced.isEmpty()) {
				throw invalid(misplaced);
			}
			request = tree.deepCopy();
			ObjectNode copied = (ObjectNode) request.get("publisher");
			List.copyOf(copied.propertyNames())
				.stream()
				.filter((name) -> copied.get(name).isNull())
				.forEach(copied::remove);
		}
		else if (tree.hasNonNull("publisher")) {
			throw invalid(List.of(new FieldError("/publisher", "must be an object")));
		}
		try {
			return STRICT.treeToValue(request, Topic.class);
		}
		catch (JacksonException ex) {
			throw invalid(List.of(describe(ex)));
		}
	}

	/**
	 * The JSON tree of a stored topic.
	 * @param topic the topic
	 * @return its tree
	 */
	public static ObjectNode toTree(Topic topic) {
		return STRICT.valueToTree(topic);
	}

	/**
	 * What a client reads of a topic: its tree with the values of the poller's headers,
	 * its OAuth2 client secret and a Kafka source's password masked, since any of them
	 * may carry a credential (they are write-only, like webhook secrets).
	 * @param topic the topic
	 * @return its tree, for a response
	 */
	public static ObjectNode toResponse(Topic topic) {
		ObjectNode tree = toTree(topic);
		if (tree.get("publisher") instanceof ObjectNode publisher) {
			if (publisher.get("headers") instanceof ObjectNode headers) {
				List.copyOf(headers.propertyNames()).forEach((name) -> headers.put(name, MASK));
			}
			if (publisher.get("oauth2") instanceof ObjectNode oauth2 && oauth2.has("clientSecret")) {
				oauth2.put("clientSecret", MASK);
			}
			if (publisher.get("security") instanceof ObjectNode security && security.has("password")) {
				security.put("password", MASK);
			}
		}
		return tree;
	}

	/**
	 * A merge patch of a topic without the masked values (header values, the OAuth2
	 * client secret, a Kafka password) a client sent back as it read them: those keep
	 * their stored value.
	 * @param patch the merge patch
	 * @return the patch to apply
	 */
	public static JsonNode withoutMaskedValues(JsonNode patch) {
		if (!(patch.get("publisher") instanceof ObjectNode publisher)) {
			return patch;
		}
		JsonNode copy = patch.deepCopy();
		ObjectNode copiedPublisher = (ObjectNode) copy.get("publisher");
		if (publisher.get("headers") instanceof ObjectNode headers) {
			ObjectNode copiedHeaders = (ObjectNode) copiedPublisher.get("headers");
			headers.properties()
				.stream()
				.filter((entry) -> MASK.equals(entry.getValue().asString(null)))
				.forEach((entry) -> copiedHeaders.remove(entry.getKey()));
		}
		if (copiedPublisher.get("oauth2") instanceof ObjectNode oauth2
				&& MASK.equals(oauth2.path("clientSecret").asString(null))) {
			oauth2.remove("clientSecret");
		}
		if (copiedPublisher.get("security") instanceof ObjectNode security
				&& MASK.equals(security.path("password").asString(null))) {
			security.remove("password");
		}
		return copy;
	}

	/**
	 * The stored form of a topic.
	 * @param topic the topic
	 * @return UTF-8 JSON
	 */
	public static byte[] toBytes(Topic topic) {
		return STRICT.writeValueAsBytes(topic);
	}

	/**
	 * Reads a stored topic.
	 * @param bytes UTF-8 JSON
	 * @return the topic
	 */
	public static Topic fromBytes(byte[] bytes) {
		return LENIENT.readValue(bytes, Topic.class);
	}

	/**
	 * What is wrong with the kind of a publisher a client sent: a missing or unknown
	 * {@code type}, or fields of another kind of publisher (a field no publisher has is
	 * left for the reader to name).
	 * @param publisher the publisher as sent
	 * @return the violations, empty when each field belongs to the publisher's kind
	 */
	private static List<FieldError> publisherKind(ObjectNode publisher) {
		JsonNode type = publisher.get("type");
		if (type == null || type.isNull()) {
			return List.of(new FieldError("/publisher/type", "is required: http-poller, http-post or kafka"));
		}
		PublisherType kind = Arrays.stream(PublisherType.values())
			.filter((candidate) -> type.isString() && candidate.toString().equals(type.asString()))
			.findFirst()
			.orElse(null);
		if (kind == null) {
			return List.of(new FieldError("/publisher/type",
					"cannot be " + type + ": expected " + JsonErrors.expected(PublisherType.class)));
		}
		Set<String> sent = publisher.properties()
			.stream()
			.filter((field) -> !field.getValue().isNull())
			.map(Map.Entry::getKey)
			.collect(Collectors.toSet());
		List<FieldError> errors = new ArrayList<>();
		if (kind == PublisherType.KAFKA) {
			if (sent.stream().anyMatch(POLLER_FIELDS::contains)) {
				errors.add(new FieldError("/publisher", "a kafka publisher takes type, " + listed(KAFKA_FIELDS)));
			}
			return errors;
		}
		if (sent.stream().anyMatch(KAFKA_FIELDS::contains)) {
			errors.add(new FieldError("/publisher", listed(KAFKA_FIELDS) + " are for kafka publishers"));
		}
		if (kind == PublisherType.HTTP_POST
				&& sent.stream().anyMatch((field) -> POLLER_FIELDS.contains(field) || KAFKA_FIELDS.contains(field))) {
			errors.add(new FieldError("/publisher", "an http-post publisher takes no fields but type"));
		}
		return errors;
	}

	private static Set<String> fieldsOf(Class<? extends Record> kind) {
		return Arrays.stream(kind.getRecordComponents())
			.map(RecordComponent::getName)
			.collect(Collectors.toCollection(LinkedHashSet::new));
	}

	private static String listed(Set<String> fields) {
		List<String> names = List.copyOf(fields);
		return String.join(", ", names.subList(0, names.size() - 1)) + " and " + names.get(names.size() - 1);
	}

	private static StreamgateException invalid(List<FieldError> errors) {
		String detail = errors.stream()
			.map((error) -> (error.pointer().isEmpty() ? "the body" : error.pointer()) + " " + error.detail())
			.collect(Collectors.joining("; "));
		return new StreamgateException(ProblemType.INVALID_TOPIC, detail).withErrors(errors);
	}

	static FieldError describe(JacksonException ex) {
		return new FieldError(pointer(ex), JsonErrors.field(ex));
	}

	private static String pointer(JacksonException ex) {
		StringBuilder pointer = new StringBuilder();
		for (JacksonException.Reference reference : ex.getPath()) {
			pointer.append('/');
			if (reference.getPropertyName() != null) {
				pointer.append(reference.getPropertyName().replace("~", "~0").replace("/", "~1"));
			}
			else {
				pointer.append(reference.getIndex());
			}
		}
		return pointer.toString();
	}

	/**
	 * Writes durations as people write them: {@code P7D} rather than {@code PT168H}.
	 */
	static final class DurationSerializer extends ValueSerializer<Duration> {

		@Override
		public void serialize(Duration value, JsonGenerator generator, SerializationContext context) {
			boolean wholeDays = !value.isZero() && value.toSeconds() % 86400 == 0 && value.getNano() == 0;
			generator.writeString(wholeDays ? "P" + value.toDays() + "D" : value.toString());
		}

	}

	/**
	 * Reads durations from ISO-8601 strings only: a bare number is refused rather than
	 * taken as seconds.
	 */
	static final class DurationDeserializer extends ValueDeserializer<Duration> {

		@Override
		public Duration deserialize(JsonParser parser, DeserializationContext context) {
			String text = (parser.currentToken() == JsonToken.VALUE_STRING) ? parser.getString() : null;
			if (text != null) {
				try {
					return Duration.parse(text);
				}
				catch (DateTimeParseException ex) {
					// reported below
				}
			}
			Object value = (text != null) ? text : parser.getString();
			throw InvalidFormatException.from(parser, "not an ISO-8601 duration", value, Duration.class);
		}

	}

}
