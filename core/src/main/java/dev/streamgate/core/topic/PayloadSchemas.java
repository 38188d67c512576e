package dev.streamgate.core.topic;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaException;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.PathType;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.streamgate.core.problem.StreamgateException.FieldError;

/**
 * The JSON Schemas topics may declare for their payloads ({@code schema} in the topic
 * definition): checked against the JSON Schema 2020-12 meta-schema when a topic is
 * created or changed (or the draft a schema names in {@code $schema}), and applied to
 * every publication. A schema is self-contained: a {@code $ref} may point into the schema
 * itself or to the JSON Schema meta-schemas, nothing is loaded from elsewhere (no URL is
 * fetched, no file or class path read).
 */
public final class PayloadSchemas {

	/** At most this many errors are named. */
	private static final int MAX_ERRORS = 10;

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final SchemaRegistry REGISTRY = SchemaRegistry
		.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
				(builder) -> builder.schemaLoader(
						(loader) -> loader.fetchRemoteResources(false).block((iri) -> !isMetaSchema(iri.toString())))
					.schemaRegistryConfig(SchemaRegistryConfig.builder().pathType(PathType.JSON_POINTER).build()));

	private static final Schema META_SCHEMA = REGISTRY
		.getSchema(SchemaLocation.of("https://json-schema.org/draft/2020-12/schema"));

	/** Compiled schemas by the schema node of a stored topic (identity). */
	private static final Cache<JsonNode, Schema> COMPILED = Caffeine.newBuilder().weakKeys().build();

	private PayloadSchemas() {
	}

	private static boolean isMetaSchema(String iri) {
		return iri.startsWith("https://json-schema.org/") || iri.startsWith("http://json-schema.org/");
	}

	/**
	 * What is wrong with a schema.
	 * @param schema the schema a topic declares
	 * @return the errors, each with its JSON pointer under {@code /schema}; none for a
	 * good schema
	 */
	public static List<FieldError> check(JsonNode schema) {
		if (!schema.isObject() && !schema.isBoolean()) {
			return List.of(new FieldError("/schema", "must be a JSON Schema: an object (or true or false)"));
		}
		List<FieldError> errors = new ArrayList<>();
		references(schema, "/schema", errors);
		if (errors.isEmpty() && !schema.has("$schema")) {
			for (Error error : META_SCHEMA.validate(schema)) {
				errors.add(new FieldError("/schema" + error.getInstanceLocation(), error.getMessage().trim()));
			}
		}
		if (errors.isEmpty()) {
			try {
				compile(schema);
			}
			catch (SchemaException ex) {
				errors.add(new FieldError("/schema", "is not a usable JSON Schema: " + ex.getMessage()));
			}
		}
		return errors.subList(0, Math.min(errors.size(), MAX_ERRORS));
	}

	/**
	 * Where a payload does not match its topic's schema.
	 * @param schema the topic's schema
	 * @param json the payload, one JSON value
	 * @return each mismatch with the JSON pointer of the payload's part (empty for the
	 * whole), at most ten; none when it matches
	 */
	public static List<FieldError> validate(JsonNode schema, byte[] json) {
		JsonNode payload;
		try {
			payload = JSON.readTree(json);
		}
		catch (JacksonException ex) {
			return List.of(new FieldError("", "is not JSON"));
		}
		List<FieldError> errors = new ArrayList<>();
		for (Error error : COMPILED.get(schema, PayloadSchemas::compile).validate(payload)) {
			errors.add(new FieldError(error.getInstanceLocation().toString(), error.getMessage().trim()));
			if (errors.size() == MAX_ERRORS) {
				break;
			}
		}
		return errors;
	}

	/**
	 * A schema loads nothing: each reference points into it ({@code #...}) or to a JSON
	 * Schema meta-schema. (The validator would refuse to load anything else, but only
	 * when a payload reaches the reference.)
	 */
	private static void references(JsonNode node, String pointer, List<FieldError> errors) {
		if (node.isObject()) {
			for (String keyword : List.of("$ref", "$dynamicRef", "$schema")) {
				JsonNode reference = node.get(keyword);
				if (reference != null && reference.isString() && !reference.asString().startsWith("#")
						&& !isMetaSchema(reference.asString())) {
					errors.add(new FieldError(pointer + "/" + keyword,
							"must point into the schema itself (#/$defs/...) or to a JSON Schema meta-schema: "
									+ "nothing is loaded from elsewhere"));
				}
			}
			node.properties()
				.forEach((member) -> references(member.getValue(), pointer + "/" + escape(member.getKey()), errors));
		}
		else if (node.isArray()) {
			for (int i = 0; i < node.size(); i++) {
				references(node.get(i), pointer + "/" + i, errors);
			}
		}
	}

	private static String escape(String key) {
		return key.replace("~", "~0").replace("/", "~1");
	}

	/**
	 * Mismatches as one line of text, for a problem's detail.
	 * @param errors the mismatches {@link #validate} found
	 * @return e.g. {@code /amount string found, number expected; /lines/1 ...}
	 */
	public static String describe(List<FieldError> errors) {
		return errors.stream()
			.map((error) -> (error.pointer().isEmpty() ? "" : error.pointer() + " ") + error.detail())
			.collect(Collectors.joining("; "));
	}

	private static Schema compile(JsonNode schema) {
		return REGISTRY.getSchema(schema);
	}

}
