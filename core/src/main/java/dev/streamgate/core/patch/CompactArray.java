package dev.streamgate.core.patch;

import java.util.Arrays;
import java.util.List;

import jakarta.json.JsonArray;
import jakarta.json.JsonValue;

/**
 * An immutable JSON array in one array of values, the companion of {@link CompactObject}
 * (Parsson's wraps an {@code ArrayList}); equal to any {@code List} of the same values,
 * Parsson's arrays included. An array of like objects is kept by column instead
 * ({@link #of(List)}).
 */
final class CompactArray extends AbstractJsonArray {

	private final JsonValue[] values;

	private CompactArray(List<JsonValue> values) {
		this.values = values.toArray(JsonValue[]::new);
	}

	/**
	 * The array of these values: a {@link CompactTable} when they are objects of the same
	 * names, enough of them.
	 * @param values the elements
	 * @return the array
	 */
	static JsonArray of(List<JsonValue> values) {
		CompactTable table = CompactTable.of(values);
		return (table != null) ? table : new CompactArray(values);
	}

	@Override
	public JsonValue get(int index) {
		return this.values[index];
	}

	@Override
	public int size() {
		return this.values.length;
	}

	@Override
	public boolean equals(Object other) {
		if (other instanceof CompactArray that) {
			return Arrays.equals(this.values, that.values);
		}
		return super.equals(other);
	}

	@Override
	public int hashCode() {
		// What List.hashCode is.
		return Arrays.hashCode(this.values);
	}

}
