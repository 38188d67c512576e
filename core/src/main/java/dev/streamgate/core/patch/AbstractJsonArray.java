package dev.streamgate.core.patch;

import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

/**
 * What the compact arrays ({@link CompactArray}, {@link CompactTable}) share: the typed
 * getters of {@code JsonArray} on top of {@code get(int)}, and a {@code List}'s equality
 * and hash code, so that they compare equal to Parsson's arrays and to each other.
 */
abstract class AbstractJsonArray extends AbstractList<JsonValue> implements JsonArray, RandomAccess {

	@Override
	public ValueType getValueType() {
		return ValueType.ARRAY;
	}

	@Override
	public JsonObject getJsonObject(int index) {
		return (JsonObject) get(index);
	}

	@Override
	public JsonArray getJsonArray(int index) {
		return (JsonArray) get(index);
	}

	@Override
	public JsonNumber getJsonNumber(int index) {
		return (JsonNumber) get(index);
	}

	@Override
	public JsonString getJsonString(int index) {
		return (JsonString) get(index);
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T extends JsonValue> List<T> getValuesAs(Class<T> type) {
		return (List<T>) this;
	}

	@Override
	public String getString(int index) {
		return getJsonString(index).getString();
	}

	@Override
	public String getString(int index, String defaultValue) {
		return (index >= 0 && index < size() && get(index) instanceof JsonString string) ? string.getString()
				: defaultValue;
	}

	@Override
	public int getInt(int index) {
		return getJsonNumber(index).intValue();
	}

	@Override
	public int getInt(int index, int defaultValue) {
		return (index >= 0 && index < size() && get(index) instanceof JsonNumber number) ? number.intValue()
				: defaultValue;
	}

	@Override
	public boolean getBoolean(int index) {
		return bool(get(index));
	}

	@Override
	public boolean getBoolean(int index, boolean defaultValue) {
		return (index >= 0 && index < size()) ? bool(get(index), defaultValue) : defaultValue;
	}

	@Override
	public boolean isNull(int index) {
		return get(index).getValueType() == ValueType.NULL;
	}

	@Override
	public String toString() {
		return new String(JsonPatches.write(this), StandardCharsets.UTF_8);
	}

	static boolean bool(JsonValue value) {
		return switch (value.getValueType()) {
			case TRUE -> true;
			case FALSE -> false;
			default -> throw new ClassCastException(value.getValueType() + " is no boolean");
		};
	}

	static boolean bool(JsonValue value, boolean defaultValue) {
		return (value == null) ? defaultValue : switch (value.getValueType()) {
			case TRUE -> true;
			case FALSE -> false;
			default -> defaultValue;
		};
	}

}
