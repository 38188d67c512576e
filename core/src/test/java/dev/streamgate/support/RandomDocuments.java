package dev.streamgate.support;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Random;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;

/**
 * Random JSON documents that evolve by random edits: nested objects, arrays that grow,
 * shrink and shift, type changes, and keys that need escaping in JSON pointers.
 */
public final class RandomDocuments {

	private static final String[] KEYS = { "a", "b", "price", "items", "x/y", "t~1", "", "é", "n", "0" };

	private final Random random;

	public RandomDocuments(long seed) {
		this.random = new Random(seed);
	}

	/**
	 * A new document.
	 * @param array whether its root is an array rather than an object
	 * @return the document
	 */
	public JsonStructure document(boolean array) {
		return array ? randomArray(0) : randomObject(0);
	}

	/**
	 * A document as polled APIs answer them: an object with a list of records (objects of
	 * the same names in the same order), whose values are integers of all sizes, text,
	 * decimals, booleans and nulls, nested lists of records, or a mix.
	 * @param rows how many records
	 * @return the document
	 */
	public JsonStructure records(int rows) {
		return Json.createObjectBuilder()
			.add("generatedAt", this.random.nextLong())
			.add("items", recordList(rows, 0))
			.build();
	}

	private JsonArray recordList(int rows, int depth) {
		int columns = 1 + this.random.nextInt(5);
		int[] kinds = new int[columns];
		for (int column = 0; column < columns; column++) {
			kinds[column] = this.random.nextInt((depth > 0) ? 6 : 7);
		}
		JsonArrayBuilder list = Json.createArrayBuilder();
		for (int row = 0; row < rows; row++) {
			JsonObjectBuilder record = Json.createObjectBuilder().add("id", row);
			for (int column = 1; column < columns; column++) {
				record.add(KEYS[column], switch (kinds[column]) {
					case 0, 1 -> integer();
					case 2 -> Json.createValue("name" + this.random.nextInt(100));
					case 3 -> Json.createValue(new BigDecimal(this.random.nextInt(100000)).movePointLeft(2));
					case 4 -> (this.random.nextInt(3) == 0) ? JsonValue.NULL : JsonValue.TRUE;
					case 5 -> randomValue(depth + 1);
					default -> recordList(this.random.nextInt(6), depth + 1);
				});
			}
			list.add(record);
		}
		return list.build();
	}

	/**
	 * A copy of a document with about a fifth of its parts changed.
	 * @param document the document
	 * @return the changed copy
	 */
	public JsonStructure mutate(JsonStructure document) {
		return (JsonStructure) mutate(document, 0);
	}

	private JsonValue randomValue(int depth) {
		int kind = this.random.nextInt((depth > 3) ? 5 : 7);
		return switch (kind) {
			case 0 -> integer();
			case 1 -> Json.createValue(KEYS[this.random.nextInt(KEYS.length)] + this.random.nextInt(100));
			case 2 -> this.random.nextBoolean() ? JsonValue.TRUE : JsonValue.FALSE;
			case 3 -> JsonValue.NULL;
			case 4 -> Json.createValue(new BigDecimal(this.random.nextInt(100000)).movePointLeft(2));
			case 5 -> randomArray(depth);
			default -> randomObject(depth);
		};
	}

	/** Small integers (shared when read), negative ones, any int, and longs. */
	private JsonValue integer() {
		return switch (this.random.nextInt(4)) {
			case 0 -> Json.createValue(this.random.nextInt(1000));
			case 1 -> Json.createValue(-this.random.nextInt(100_000));
			case 2 -> Json.createValue(this.random.nextInt());
			default -> Json.createValue(this.random.nextLong());
		};
	}

	private JsonArray randomArray(int depth) {
		JsonArrayBuilder array = Json.createArrayBuilder();
		for (int i = this.random.nextInt(6); i > 0; i--) {
			array.add(randomValue(depth + 1));
		}
		return array.build();
	}

	private JsonObject randomObject(int depth) {
		JsonObjectBuilder object = Json.createObjectBuilder();
		for (int i = this.random.nextInt(6); i > 0; i--) {
			object.add(KEYS[this.random.nextInt(KEYS.length)], randomValue(depth + 1));
		}
		return object.build();
	}

	private JsonValue mutate(JsonValue value, int depth) {
		if (value instanceof JsonArray array) {
			JsonArrayBuilder next = Json.createArrayBuilder();
			for (JsonValue element : array) {
				int action = this.random.nextInt(10);
				if (action == 1) {
					next.add(randomValue(depth + 1));
				}
				if (action != 0) {
					next.add(mutate(element, depth + 1));
				}
			}
			if (this.random.nextInt(4) == 0) {
				next.add(randomValue(depth + 1));
			}
			return next.build();
		}
		if (value instanceof JsonObject object) {
			JsonObjectBuilder next = Json.createObjectBuilder();
			for (Map.Entry<String, JsonValue> field : object.entrySet()) {
				if (this.random.nextInt(10) != 0) {
					next.add(field.getKey(), mutate(field.getValue(), depth + 1));
				}
			}
			if (this.random.nextInt(3) == 0) {
				next.add(KEYS[this.random.nextInt(KEYS.length)], randomValue(depth + 1));
			}
			return next.build();
		}
		return (this.random.nextInt(10) < 2) ? randomValue(4) : value;
	}

}
