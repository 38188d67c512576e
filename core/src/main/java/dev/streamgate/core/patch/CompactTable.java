package dev.streamgate.core.patch;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;

import jakarta.json.JsonValue;
import tools.jackson.core.JsonGenerator;

/**
 * An immutable JSON array of objects that all have the same names in the same order (a
 * list of records, what polled APIs mostly answer), kept by column: for each name, the
 * integers of all elements in one {@code long[]}, or their values in one array.
 * <p>
 * A topic's current document is alive at every young collection, and each collection
 * copies it object by object: as {@link CompactObject}s, sse-2's 250 documents of 1,706
 * records were 2.3 million objects (an object, its values and a number each), which made
 * most of each pause (docs/benchmarks.md). By column, a list of records of numbers is a
 * few arrays.
 * <p>
 * An element is made when it is read ({@link #get(int)}): a new {@link CompactObject}
 * each time, equal to the one before. Comparing two tables of the same names
 * ({@link #equals(Object)}, {@link #equalAt(int, CompactTable)}) and writing one read the
 * columns without making elements. Equal to any {@code List} of equal objects, as
 * {@link CompactArray} is.
 */
final class CompactTable extends AbstractJsonArray {

	/** Shorter arrays of like objects stay {@link CompactArray}s. */
	static final int MIN_ROWS = 4;

	private final CompactObject.Shape shape;

	private final int size;

	/**
	 * One per name of the shape: a {@code long[]} when every element's value is an
	 * integer that a {@link CompactNumber} holds, else a {@code JsonValue[]}.
	 */
	private final Object[] columns;

	private CompactTable(CompactObject.Shape shape, int size, Object[] columns) {
		this.shape = shape;
		this.size = size;
		this.columns = columns;
	}

	/**
	 * The table of these values.
	 * @param values the elements
	 * @return the table, or {@code null} when they are fewer than {@link #MIN_ROWS}, or
	 * not all compact objects of the same (not empty) names in the same order
	 */
	static CompactTable of(List<JsonValue> values) {
		if (values.size() < MIN_ROWS || !(values.get(0) instanceof CompactObject first) || first.isEmpty()) {
			return null;
		}
		CompactObject.Shape shape = first.shape();
		for (JsonValue value : values) {
			if (!(value instanceof CompactObject object) || !object.shape().sameNames(shape)) {
				return null;
			}
		}
		Object[] columns = new Object[shape.size()];
		for (int column = 0; column < columns.length; column++) {
			columns[column] = column(values, column);
		}
		return new CompactTable(shape, values.size(), columns);
	}

	private static Object column(List<JsonValue> rows, int column) {
		int size = rows.size();
		long[] integers = new long[size];
		for (int row = 0; row < size; row++) {
			if (!(((CompactObject) rows.get(row)).value(column) instanceof CompactNumber integer)) {
				JsonValue[] values = new JsonValue[size];
				for (int i = 0; i < size; i++) {
					values[i] = ((CompactObject) rows.get(i)).value(column);
				}
				return values;
			}
			integers[row] = integer.value();
		}
		return integers;
	}

	@Override
	public JsonValue get(int index) {
		Objects.checkIndex(index, this.size);
		JsonValue[] values = new JsonValue[this.columns.length];
		for (int column = 0; column < values.length; column++) {
			values[column] = value(column, index);
		}
		return CompactObject.of(this.shape, values);
	}

	/** A value as the reader made it: integers as {@link JsonPatches#read} makes them. */
	private JsonValue value(int column, int row) {
		Object values = this.columns[column];
		return (values instanceof long[] integers) ? JsonPatches.integer(integers[row]) : ((JsonValue[]) values)[row];
	}

	@Override
	public int size() {
		return this.size;
	}

	/**
	 * Whether another table has the same names in the same order, so that
	 * {@link #equalAt(int, CompactTable)} compares its elements.
	 * @param other the other table
	 * @return true when it has
	 */
	boolean sameNames(CompactTable other) {
		return this.shape.sameNames(other.shape);
	}

	/**
	 * Whether the element at an index equals the other table's element at the same index,
	 * without making either.
	 * @param index the index, below both sizes
	 * @param other a table of the same names
	 * @return true when they are equal
	 */
	boolean equalAt(int index, CompactTable other) {
		for (int column = 0; column < this.columns.length; column++) {
			if (this.columns[column] instanceof long[] mine && other.columns[column] instanceof long[] theirs) {
				if (mine[index] != theirs[index]) {
					return false;
				}
			}
			else if (!value(column, index).equals(other.value(column, index))) {
				return false;
			}
		}
		return true;
	}

	@Override
	public boolean equals(Object other) {
		if (this == other) {
			return true;
		}
		if (other instanceof CompactTable that && that.size == this.size && sameNames(that)) {
			for (int column = 0; column < this.columns.length; column++) {
				if (!equalColumns(column, that)) {
					return false;
				}
			}
			return true;
		}
		return super.equals(other);
	}

	private boolean equalColumns(int column, CompactTable other) {
		Object mine = this.columns[column];
		Object theirs = other.columns[column];
		if (mine instanceof long[] a && theirs instanceof long[] b) {
			return Arrays.equals(a, b);
		}
		if (mine instanceof JsonValue[] a && theirs instanceof JsonValue[] b) {
			return Arrays.equals(a, b);
		}
		for (int row = 0; row < this.size; row++) {
			if (!value(column, row).equals(other.value(column, row))) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Writes the elements (not the brackets around them) without making them.
	 * @param generator where to
	 * @param values how a value that is no integer is written
	 */
	void writeElements(JsonGenerator generator, BiConsumer<JsonGenerator, JsonValue> values) {
		for (int row = 0; row < this.size; row++) {
			generator.writeStartObject();
			for (int column = 0; column < this.columns.length; column++) {
				generator.writeName(this.shape.name(column));
				if (this.columns[column] instanceof long[] integers) {
					generator.writeNumber(integers[row]);
				}
				else {
					values.accept(generator, ((JsonValue[]) this.columns[column])[row]);
				}
			}
			generator.writeEndObject();
		}
	}

}
