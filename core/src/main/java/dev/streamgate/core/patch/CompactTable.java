package dev.streamgate.core.patch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;

import jakarta.json.JsonArray;
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
 * most of each pause. By column, a list of records of numbers is a few arrays.
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

	/**
	 * The elements of an array being read: from the first object on, each object of the
	 * first one's names in the same order goes straight into the columns, its integers
	 * kept as they are read, never made into values.
	 */
	static final class Rows {

		private final CompactObject.Shape shape;

		/** As the table's, with room for more rows. */
		private final Object[] columns;

		private int size;

		/**
		 * The rows of an array whose first element is this object.
		 * @param first an object with at least one name
		 */
		Rows(CompactObject first) {
			this.shape = first.shape();
			this.columns = new Object[this.shape.size()];
			Arrays.setAll(this.columns, (column) -> new long[16]);
			for (int column = 0; column < this.columns.length; column++) {
				if (first.value(column) instanceof CompactNumber integer) {
					integer(column, integer.value());
				}
				else {
					value(column, first.value(column));
				}
			}
			add();
		}

		CompactObject.Shape shape() {
			return this.shape;
		}

		/** Makes room for the next row, before any of its values. */
		void makeRoom() {
			int capacity = (this.columns[0] instanceof long[] integers) ? integers.length
					: ((JsonValue[]) this.columns[0]).length;
			if (this.size == capacity) {
				for (int column = 0; column < this.columns.length; column++) {
					this.columns[column] = (this.columns[column] instanceof long[] integers)
							? Arrays.copyOf(integers, capacity * 2)
							: Arrays.copyOf((JsonValue[]) this.columns[column], capacity * 2);
				}
			}
		}

		/** The next row's value of a column: an integer. */
		void integer(int column, long value) {
			if (this.columns[column] instanceof long[] integers) {
				integers[this.size] = value;
			}
			else {
				((JsonValue[]) this.columns[column])[this.size] = JsonPatches.integer(value);
			}
		}

		/** The next row's value of a column: anything but an integer. */
		void value(int column, JsonValue value) {
			if (this.columns[column] instanceof long[] integers) {
				JsonValue[] values = new JsonValue[integers.length];
				for (int row = 0; row < this.size; row++) {
					values[row] = JsonPatches.integer(integers[row]);
				}
				this.columns[column] = values;
			}
			((JsonValue[]) this.columns[column])[this.size] = value;
		}

		/** The next row is complete. */
		void add() {
			this.size++;
		}

		/**
		 * A value of the next row, not complete.
		 * @param column one the row has a value of
		 * @return the value as the reader makes it
		 */
		JsonValue pending(int column) {
			return valueAt(this.columns, column, this.size);
		}

		/**
		 * The complete rows as objects, to read on as any array.
		 * @return a list to add more elements to
		 */
		List<JsonValue> elements() {
			List<JsonValue> elements = new ArrayList<>(this.size * 2);
			for (int row = 0; row < this.size; row++) {
				JsonValue[] values = new JsonValue[this.columns.length];
				for (int column = 0; column < values.length; column++) {
					values[column] = valueAt(this.columns, column, row);
				}
				elements.add(CompactObject.of(this.shape, values));
			}
			return elements;
		}

		/**
		 * The array of the complete rows.
		 * @return a table, or a {@link CompactArray} when they are fewer than
		 * {@link #MIN_ROWS}
		 */
		JsonArray array() {
			if (this.size < MIN_ROWS) {
				return CompactArray.of(elements());
			}
			Object[] columns = new Object[this.columns.length];
			for (int column = 0; column < columns.length; column++) {
				columns[column] = (this.columns[column] instanceof long[] integers) ? Arrays.copyOf(integers, this.size)
						: Arrays.copyOf((JsonValue[]) this.columns[column], this.size);
			}
			return new CompactTable(this.shape, this.size, columns);
		}

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

	/**
	 * A value of an element, without making the element.
	 * @param column the position of its name
	 * @param row the element's index
	 * @return the value as the reader made it: integers as {@link JsonPatches#read} makes
	 * them
	 */
	JsonValue value(int column, int row) {
		return valueAt(this.columns, column, row);
	}

	private static JsonValue valueAt(Object[] columns, int column, int row) {
		Object values = columns[column];
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
			if (!equalAt(column, index, other)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Whether the value of a name at an index equals the other table's, without making
	 * either element.
	 * @param column the name's position
	 * @param index the index, below both sizes
	 * @param other a table of the same names
	 * @return true when they are equal
	 */
	boolean equalAt(int column, int index, CompactTable other) {
		if (this.columns[column] instanceof long[] mine && other.columns[column] instanceof long[] theirs) {
			return mine[index] == theirs[index];
		}
		return value(column, index).equals(other.value(column, index));
	}

	/**
	 * The names of the elements, in order.
	 * @return the shape
	 */
	CompactObject.Shape shape() {
		return this.shape;
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
