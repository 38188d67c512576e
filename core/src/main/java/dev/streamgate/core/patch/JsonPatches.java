package dev.streamgate.core.patch;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonFactory;

import dev.streamgate.core.problem.JsonErrors;

/**
 * JSON documents and RFC 6902 JSON Patch between them, with Jakarta JSON-P values, read
 * and written by Jackson's streaming parser and generator. What is read is compact
 * ({@link CompactObject}, {@link CompactArray}, {@link CompactTable} for arrays of like
 * objects, {@link CompactNumber}); patches, pointers and whatever they build are Eclipse
 * Parsson's, and the two mix freely.
 * <p>
 * Documents are immutable, so one instance can be shared by every thread that streams it.
 * Numbers keep their exact decimal value, and duplicate object keys are refused.
 */
public final class JsonPatches {

	/**
	 * Longest arrays of changed length diffed by longest common subsequence; longer ones
	 * are diffed index by index.
	 */
	static final int LCS_MAX_LENGTH = 1000;

	/**
	 * The JSON-P implementation, looked up once: each of {@code Json}'s static factory
	 * methods looks it up again through the service loader, which cost a tenth of a
	 * poller's CPU.
	 */
	private static final JsonProvider JSON = JsonProvider.provider();

	/** The smallest of the integers read as shared instances. */
	private static final int SMALL_MIN = -128;

	/**
	 * Integers from -128 to 1023 (counts, indexes, codes), read as shared instances, as
	 * {@code Integer.valueOf} does: numbers are immutable.
	 */
	private static final JsonNumber[] SMALL = java.util.stream.IntStream.range(SMALL_MIN, 1024)
		.mapToObj(CompactNumber::of)
		.toArray(JsonNumber[]::new);

	private static final JsonFactory STRICT = JsonFactory.builder()
		.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
		.build();

	/** Parses what this application wrote, and writes. */
	private static final JsonFactory STORED = JsonFactory.builder().build();

	private JsonPatches() {
	}

	/**
	 * The patch that turns one document into another.
	 * <p>
	 * Objects are compared member by member. Arrays whose length changed, up to
	 * {@value #LCS_MAX_LENGTH} elements, are diffed by Parsson (a longest common
	 * subsequence, which finds insertions and removals); its cost grows with the product
	 * of the lengths and its recursion with their sum, so arrays of unchanged length and
	 * longer ones are compared index by index, which stays linear and suits values that
	 * change in place. An array with more than half of its elements changed is replaced
	 * whole (the operations would be about as large, or larger).
	 * @param from the previous document
	 * @param to the next document
	 * @return the patch, an empty array when they are equal
	 */
	public static JsonArray diff(JsonStructure from, JsonStructure to) {
		JsonArrayBuilder patch = JSON.createArrayBuilder();
		diff(from, to, "", new Built(patch));
		return patch.build();
	}

	/**
	 * The patch of {@link #diff(JsonStructure, JsonStructure)}, written as
	 * {@link #write(JsonValue)} writes it but without building it first: what a poller
	 * publishes (building the operations with Parsson's builders, then writing them, was
	 * a fifth of a poller's CPU samples in sse-2's profile).
	 * @param from the previous document
	 * @param to the next document
	 * @return the patch as UTF-8 JSON, empty when the documents are equal
	 */
	public static Optional<byte[]> writeDiff(JsonStructure from, JsonStructure to) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		try (JsonGenerator generator = STORED.createGenerator(ObjectWriteContext.empty(), out)) {
			generator.writeStartArray();
			diff(from, to, "", new Written(generator));
			generator.writeEndArray();
		}
		// Equal documents wrote no operation: "[]".
		return (out.size() > 2) ? Optional.of(out.toByteArray()) : Optional.empty();
	}

	/**
	 * The patch that turns one JSON value into another, as
	 * {@link #diff(JsonStructure, JsonStructure)} makes it; a value that is no structure,
	 * or changes kind, is replaced whole ({@code {"op": "replace", "path": ""}}).
	 * @param from the previous value
	 * @param to the next value
	 * @return the patch, an empty array when they are equal
	 */
	public static JsonArray diffValues(JsonValue from, JsonValue to) {
		JsonArrayBuilder patch = JSON.createArrayBuilder();
		diff(from, to, "", new Built(patch));
		return patch.build();
	}

	private static void diff(JsonValue from, JsonValue to, String path, Operations patch) {
		if (from.equals(to)) {
			return;
		}
		if (from instanceof JsonObject before && to instanceof JsonObject after) {
			for (String key : before.keySet()) {
				if (!after.containsKey(key)) {
					patch.add("remove", path + "/" + escape(key), null);
				}
			}
			for (Map.Entry<String, JsonValue> member : after.entrySet()) {
				String memberPath = path + "/" + escape(member.getKey());
				JsonValue previous = before.get(member.getKey());
				if (previous == null) {
					patch.add("add", memberPath, member.getValue());
				}
				else {
					diff(previous, member.getValue(), memberPath, patch);
				}
			}
		}
		else if (from instanceof JsonArray before && to instanceof JsonArray after) {
			// Elements changed in place (the usual case for a polled API) are found in
			// linear time; the longest common subsequence, whose cost grows with the
			// product of the lengths (30-70 ms for 700-1000 objects), only looks for
			// insertions and removals.
			if (before.size() != after.size() && Math.max(before.size(), after.size()) <= LCS_MAX_LENGTH) {
				for (JsonValue operation : JSON.createDiff(before, after).toJsonArray()) {
					patch.addUnder(path, operation.asJsonObject());
				}
			}
			else {
				diffByIndex(before, after, path, patch);
			}
		}
		else {
			patch.add("replace", path, to);
		}
	}

	private static void diffByIndex(JsonArray before, JsonArray after, String path, Operations patch) {
		int common = Math.min(before.size(), after.size());
		int maxChanges = Math.max(before.size(), after.size()) / 2;
		int changes = Math.abs(before.size() - after.size());
		// The indexes of the elements that differ, so that equal ones are compared once.
		int[] changed = new int[Math.max(0, Math.min(common, maxChanges - changes + 1))];
		// Two tables of the same names compare their columns without making the elements.
		CompactTable table = (before instanceof CompactTable from && after instanceof CompactTable to
				&& from.sameNames(to)) ? from : null;
		int count = 0;
		for (int i = 0; i < common && changes <= maxChanges; i++) {
			boolean equal = (table != null) ? table.equalAt(i, (CompactTable) after)
					: before.get(i).equals(after.get(i));
			if (!equal) {
				changes++;
				if (count < changed.length) {
					changed[count++] = i;
				}
			}
		}
		if (changes > maxChanges) {
			// The operations would be about as large as the array, or larger.
			patch.add("replace", path, after);
			return;
		}
		for (int k = 0; k < count; k++) {
			int i = changed[k];
			if (table != null) {
				diffRow(table, (CompactTable) after, i, path + "/" + i, patch);
			}
			else {
				diff(before.get(i), after.get(i), path + "/" + i, patch);
			}
		}
		for (int i = common; i < after.size(); i++) {
			patch.add("add", path + "/" + i, after.get(i));
		}
		for (int i = before.size() - 1; i >= common; i--) {
			patch.add("remove", path + "/" + i, null);
		}
	}

	/**
	 * The operations that {@code diff(before.get(row), after.get(row))} gives (objects of
	 * the same names: each value that differs, in the order of the names), found from the
	 * columns without making the two elements.
	 */
	private static void diffRow(CompactTable before, CompactTable after, int row, String path, Operations patch) {
		CompactObject.Shape names = before.shape();
		for (int column = 0; column < names.size(); column++) {
			if (!before.equalAt(column, row, after)) {
				diff(before.value(column, row), after.value(column, row), path + "/" + escape(names.name(column)),
						patch);
			}
		}
	}

	/** Where the diff puts its operations, in order. */
	private interface Operations {

		/**
		 * An operation.
		 * @param op its name
		 * @param path its path
		 * @param value its value, {@code null} for none
		 */
		void add(String op, String path, JsonValue value);

		/**
		 * An operation of Parsson's diff of an array, its path made relative to the
		 * array.
		 * @param path the array's path
		 * @param operation the operation, its members kept in their order
		 */
		void addUnder(String path, JsonObject operation);

	}

	/** Operations built into a patch. */
	private record Built(JsonArrayBuilder patch) implements Operations {

		@Override
		public void add(String op, String path, JsonValue value) {
			JsonObjectBuilder operation = JSON.createObjectBuilder().add("op", op).add("path", path);
			this.patch.add((value != null) ? operation.add("value", value) : operation);
		}

		@Override
		public void addUnder(String path, JsonObject operation) {
			this.patch.add(JSON.createObjectBuilder(operation).add("path", path + operation.getString("path")));
		}

	}

	/**
	 * Operations written as they come, as {@link #write(JsonValue)} writes a built patch.
	 */
	private record Written(JsonGenerator generator) implements Operations {

		@Override
		public void add(String op, String path, JsonValue value) {
			this.generator.writeStartObject();
			this.generator.writeStringProperty("op", op);
			this.generator.writeStringProperty("path", path);
			if (value != null) {
				this.generator.writeName("value");
				write(this.generator, value);
			}
			this.generator.writeEndObject();
		}

		@Override
		public void addUnder(String path, JsonObject operation) {
			this.generator.writeStartObject();
			for (Map.Entry<String, JsonValue> member : operation.entrySet()) {
				this.generator.writeName(member.getKey());
				if (member.getKey().equals("path")) {
					this.generator.writeString(path + operation.getString("path"));
				}
				else {
					write(this.generator, member.getValue());
				}
			}
			this.generator.writeEndObject();
		}

	}

	private static String escape(String key) {
		return key.replace("~", "~0").replace("/", "~1");
	}

	/**
	 * Applies a patch.
	 * @param document the document
	 * @param patch the patch
	 * @return the patched document
	 * @throws JsonException when the patch does not apply
	 */
	public static JsonStructure apply(JsonStructure document, JsonArray patch) {
		return PatchApplier.apply(document, patch);
	}

	/**
	 * Parses exactly one JSON value.
	 * @param json UTF-8 JSON
	 * @return the value
	 * @throws IllegalArgumentException when the bytes are not exactly one JSON value, or
	 * an object has a key twice
	 */
	public static JsonValue read(byte[] json) {
		return read(STRICT, json);
	}

	/**
	 * Parses JSON that this application wrote and checked before (events and checkpoints
	 * read back from Kafka), without looking for duplicate keys again.
	 * @param json UTF-8 JSON holding exactly one value
	 * @return the value
	 */
	public static JsonValue readStored(byte[] json) {
		return read(STORED, json);
	}

	/**
	 * Parsed by Jackson's byte-level parser straight into JSON-P values, checks included:
	 * Parsson's own reader decodes the bytes to characters first, and the checks took a
	 * second pass (together 43% of a poller's samples in an sse-3 profile).
	 */
	private static JsonValue read(JsonFactory factory, byte[] json) {
		CompactObject.Shapes shapes = new CompactObject.Shapes();
		return one(factory, json, (parser, first) -> value(parser, first, shapes, 0));
	}

	/**
	 * Handles exactly one JSON value.
	 * @param handler what is done with the value, from its first token on
	 * @throws IllegalArgumentException naming what is wrong and where
	 */
	private static <T> T one(JsonFactory factory, byte[] json, BiFunction<JsonParser, JsonToken, T> handler) {
		try (JsonParser parser = factory.createParser(ObjectReadContext.empty(), json)) {
			JsonToken first = parser.nextToken();
			if (first == null) {
				throw new IllegalArgumentException("no JSON value");
			}
			T result = handler.apply(parser, first);
			if (parser.nextToken() != null) {
				throw new IllegalArgumentException(
						"more than one JSON value (at character " + parser.currentLocation().getCharOffset() + ")");
			}
			return result;
		}
		catch (JacksonException ex) {
			// Limits (nesting depth, number length) are reported without a location.
			String where = (ex.getLocation() != null)
					? " at line " + ex.getLocation().getLineNr() + ", column " + ex.getLocation().getColumnNr() : "";
			throw new IllegalArgumentException(JsonErrors.syntax(ex) + where, ex);
		}
	}

	/**
	 * Objects and arrays are compact (under a third of Parsson's heap for arrays of small
	 * objects; see {@link CompactObject}), their names shared by shape within the
	 * document; an array of like objects is kept by column ({@link CompactTable}).
	 */
	private static JsonValue value(JsonParser parser, JsonToken token, CompactObject.Shapes shapes, int depth) {
		return switch (token) {
			case START_OBJECT -> object(parser, shapes, depth);
			case START_ARRAY -> array(parser, shapes, depth);
			case VALUE_STRING -> JSON.createValue(parser.getString());
			// Numbers keep their exact decimal value, as Parsson's reader keeps them.
			case VALUE_NUMBER_INT -> switch (parser.getNumberType()) {
				case INT -> number(parser.getIntValue());
				case LONG -> CompactNumber.of(parser.getLongValue());
				default -> JSON.createValue(parser.getBigIntegerValue());
			};
			case VALUE_NUMBER_FLOAT -> JSON.createValue(parser.getDecimalValue());
			case VALUE_TRUE -> JsonValue.TRUE;
			case VALUE_FALSE -> JsonValue.FALSE;
			case VALUE_NULL -> JsonValue.NULL;
			default -> throw new IllegalArgumentException("unexpected " + token);
		};
	}

	/**
	 * An array. From the first element on, as long as they are objects of the first one's
	 * names in the same order (a list of records), the elements are read straight into
	 * the columns of a {@link CompactTable}, their integers never made into values; at
	 * the first element that is not, the rows read so far become objects and the array is
	 * read on as any other.
	 */
	private static JsonArray array(JsonParser parser, CompactObject.Shapes shapes, int depth) {
		List<JsonValue> values = new ArrayList<>();
		CompactTable.Rows rows = null;
		for (JsonToken next = parser.nextToken(); next != JsonToken.END_ARRAY; next = parser.nextToken()) {
			if (rows != null) {
				JsonValue unlike = (next == JsonToken.START_OBJECT) ? row(parser, shapes, depth + 1, rows)
						: value(parser, next, shapes, depth + 1);
				if (unlike != null) {
					values = rows.elements();
					values.add(unlike);
					rows = null;
				}
				continue;
			}
			JsonValue value = value(parser, next, shapes, depth + 1);
			if (values.isEmpty() && value instanceof CompactObject first && !first.isEmpty()) {
				rows = new CompactTable.Rows(first);
			}
			else {
				values.add(value);
			}
		}
		return (rows != null) ? rows.array() : CompactArray.of(values);
	}

	/**
	 * Reads an object into the next row of a table when it has the table's names in the
	 * same order.
	 * @return {@code null} when it had, else the object, read as any other
	 */
	private static JsonValue row(JsonParser parser, CompactObject.Shapes shapes, int depth, CompactTable.Rows rows) {
		CompactObject.Shape shape = rows.shape();
		rows.makeRoom();
		int count = 0;
		JsonToken token = parser.nextToken();
		while (token == JsonToken.PROPERTY_NAME && count < shape.size()
				&& shape.name(count).equals(parser.currentName())) {
			JsonToken value = parser.nextToken();
			if (value == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
				rows.integer(count, parser.getLongValue());
			}
			else {
				rows.value(count, value(parser, value, shapes, depth + 1));
			}
			count++;
			token = parser.nextToken();
		}
		if (token == JsonToken.END_OBJECT && count == shape.size()) {
			rows.add();
			return null;
		}
		JsonValue[] values = new JsonValue[Math.max(4, shape.size())];
		for (int column = 0; column < count; column++) {
			values[column] = rows.pending(column);
		}
		return object(parser, shapes, depth, shape, values, count, token);
	}

	/**
	 * An object, its names compared as they come with those of the last object read at
	 * the same depth (in an array of like objects, the element before): when they are the
	 * same, the shape is taken as it is, without collecting the names and looking them
	 * up.
	 */
	private static JsonValue object(JsonParser parser, CompactObject.Shapes shapes, int depth) {
		CompactObject.Shape expected = shapes.last(depth);
		int expectedSize = (expected != null) ? expected.size() : 0;
		return object(parser, shapes, depth, expected, new JsonValue[(expectedSize > 0) ? expectedSize : 4], 0,
				parser.nextToken());
	}

	/**
	 * The rest of an object whose first values, of the expected shape's first names, are
	 * read.
	 * @param values those values, with room for more
	 * @param count how many
	 * @param token the token after them
	 */
	private static JsonValue object(JsonParser parser, CompactObject.Shapes shapes, int depth,
			CompactObject.Shape expected, JsonValue[] values, int count, JsonToken token) {
		int expectedSize = (expected != null) ? expected.size() : 0;
		// Collected only from the first name that differs from the expected shape's.
		List<String> names = null;
		for (; token == JsonToken.PROPERTY_NAME; token = parser.nextToken()) {
			String name = parser.currentName();
			if (names == null && (count >= expectedSize || !expected.name(count).equals(name))) {
				names = (expected != null) ? expected.names(count) : new ArrayList<>();
			}
			if (names != null) {
				names.add(name);
			}
			if (count == values.length) {
				values = Arrays.copyOf(values, count * 2);
			}
			values[count++] = value(parser, parser.nextToken(), shapes, depth + 1);
		}
		if (names == null && count < expectedSize) {
			names = expected.names(count);
		}
		CompactObject.Shape shape = (names != null) ? shapes.of(names)
				: (expected != null) ? expected : shapes.of(List.of());
		if (shape == null) {
			return lastWins(names, Arrays.asList(values).subList(0, count));
		}
		shapes.last(depth, shape);
		return CompactObject.of(shape, (count == values.length) ? values : Arrays.copyOf(values, count));
	}

	private static JsonNumber number(int value) {
		return (value >= SMALL_MIN && value < SMALL_MIN + SMALL.length) ? SMALL[value - SMALL_MIN]
				: CompactNumber.of(value);
	}

	/**
	 * An integer as the reader makes it: small ones shared, the others compact.
	 * @param value the integer
	 * @return its JSON number
	 */
	static JsonNumber integer(long value) {
		return (value == (int) value) ? number((int) value) : CompactNumber.of(value);
	}

	/**
	 * An object whose names repeat (only stored JSON, read without the duplicate check):
	 * the last value of a name wins, in the place of its first, as with Parsson's
	 * builder.
	 */
	private static JsonObject lastWins(List<String> names, List<JsonValue> values) {
		JsonObjectBuilder object = JSON.createObjectBuilder();
		for (int i = 0; i < names.size(); i++) {
			object.add(names.get(i), values.get(i));
		}
		return object.build();
	}

	/**
	 * The JSON-P implementation, for building values and pointers without the service
	 * lookup of each {@code Json.create...} call.
	 * @return the provider
	 */
	public static JsonProvider json() {
		return JSON;
	}

	/**
	 * Checks, without building anything, that bytes hold exactly one JSON value with no
	 * duplicate object keys.
	 * @param json UTF-8 JSON
	 * @throws IllegalArgumentException naming what is wrong and where
	 */
	public static void check(byte[] json) {
		one(STRICT, json, (parser, first) -> {
			parser.skipChildren();
			return null;
		});
	}

	/**
	 * Serializes a JSON value, with Jackson's generator (Parsson's writes characters and
	 * encodes them afterwards: 28% of a poller's samples in the same profile).
	 * @param value the value
	 * @return UTF-8 JSON
	 */
	public static byte[] write(JsonValue value) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		try (JsonGenerator generator = STORED.createGenerator(ObjectWriteContext.empty(), out)) {
			write(generator, value);
		}
		return out.toByteArray();
	}

	private static void write(JsonGenerator generator, JsonValue value) {
		switch (value.getValueType()) {
			case OBJECT -> {
				generator.writeStartObject();
				for (Map.Entry<String, JsonValue> member : value.asJsonObject().entrySet()) {
					generator.writeName(member.getKey());
					write(generator, member.getValue());
				}
				generator.writeEndObject();
			}
			case ARRAY -> {
				generator.writeStartArray();
				if (value instanceof CompactTable table) {
					table.writeElements(generator, JsonPatches::write);
				}
				else {
					for (JsonValue element : value.asJsonArray()) {
						write(generator, element);
					}
				}
				generator.writeEndArray();
			}
			case STRING -> generator.writeString(((JsonString) value).getString());
			// The exact decimal value, as Parsson's writer writes it.
			case NUMBER -> {
				if (value instanceof CompactNumber integer) {
					integer.write(generator);
				}
				else {
					generator.writeNumber(value.toString());
				}
			}
			case TRUE -> generator.writeBoolean(true);
			case FALSE -> generator.writeBoolean(false);
			case NULL -> generator.writeNull();
		}
	}

}
