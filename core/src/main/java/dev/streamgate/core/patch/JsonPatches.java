package dev.streamgate.core.patch;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.Map;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonConfig;
import jakarta.json.JsonException;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import jakarta.json.JsonWriter;
import jakarta.json.JsonWriterFactory;
import jakarta.json.JsonReader;
import jakarta.json.JsonReaderFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonFactory;

/**
 * JSON documents and RFC 6902 JSON Patch between them, with Jakarta JSON-P (Eclipse
 * Parsson).
 * <p>
 * Documents are immutable, so one instance can be shared by every thread that streams it.
 * Numbers keep their exact decimal value, and duplicate object keys are refused.
 */
public final class JsonPatches {

	private static final JsonReaderFactory READERS = Json
		.createReaderFactory(Map.of(JsonConfig.KEY_STRATEGY, JsonConfig.KeyStrategy.NONE));

	private static final JsonFactory STRICT = JsonFactory.builder()
		.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
		.build();

	private static final JsonWriterFactory WRITERS = Json.createWriterFactory(Map.of());

	private JsonPatches() {
	}

	/**
	 * The patch that turns one document into another.
	 * @param from the previous document
	 * @param to the next document
	 * @return the patch, an empty array when they are equal
	 */
	public static JsonArray diff(JsonStructure from, JsonStructure to) {
		return Json.createDiff(from, to).toJsonArray();
	}

	/**
	 * Applies a patch.
	 * @param document the document
	 * @param patch the patch
	 * @return the patched document
	 * @throws JsonException when the patch does not apply
	 */
	public static JsonStructure apply(JsonStructure document, JsonArray patch) {
		return Json.createPatch(patch).apply(document);
	}

	/**
	 * Parses exactly one JSON value.
	 * @param json UTF-8 JSON
	 * @return the value
	 * @throws IllegalArgumentException when the bytes are not exactly one JSON value
	 */
	public static JsonValue read(byte[] json) {
		check(json);
		try (JsonReader reader = READERS.createReader(new ByteArrayInputStream(json))) {
			return reader.readValue();
		}
		catch (JsonException ex) {
			throw new IllegalArgumentException(ex.getMessage(), ex);
		}
	}

	/**
	 * Checks, without building anything, that bytes hold exactly one JSON value with no
	 * duplicate object keys.
	 * @param json UTF-8 JSON
	 * @throws IllegalArgumentException naming what is wrong and where
	 */
	public static void check(byte[] json) {
		try (tools.jackson.core.JsonParser parser = STRICT.createParser(ObjectReadContext.empty(), json)) {
			if (parser.nextToken() == null) {
				throw new IllegalArgumentException("no JSON value");
			}
			parser.skipChildren();
			if (parser.nextToken() != null) {
				throw new IllegalArgumentException(
						"more than one JSON value (at character " + parser.currentLocation().getCharOffset() + ")");
			}
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException(ex.getOriginalMessage() + " at line " + ex.getLocation().getLineNr()
					+ ", column " + ex.getLocation().getColumnNr(), ex);
		}
	}

	/**
	 * Serializes a JSON value.
	 * @param value the value
	 * @return UTF-8 JSON
	 */
	public static byte[] write(JsonValue value) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		try (JsonWriter writer = WRITERS.createWriter(out)) {
			writer.write(value);
		}
		return out.toByteArray();
	}

}
