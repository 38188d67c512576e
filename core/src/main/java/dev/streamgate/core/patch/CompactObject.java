package dev.streamgate.core.patch;

import java.nio.charset.StandardCharsets;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

/**
 * An immutable JSON object in two arrays: its names, shared by every object of the same
 * document with the same names in the same order ({@link Shape}), and its values.
 * <p>
 * Parsson's object is a {@code LinkedHashMap} behind a wrapper: for a polled document of
 * arrays of small objects (the reference tables' 50 KB documents) that made 580 KiB of
 * heap out of 50 KB of JSON, copied by every young collection while the document is the
 * current one. This one keeps member order, equality and hash code of a {@code Map}, so
 * it compares equal to Parsson's objects and Parsson's patches and pointers work on it.
 * It implements {@code Map} itself rather than extend {@code AbstractMap}, whose two
 * cached views would add 8 bytes to each of a document's objects.
 */
final class CompactObject implements JsonObject {

	private final Shape shape;

	private final JsonValue[] values;

	private CompactObject(Shape shape, JsonValue[] values) {
		this.shape = shape;
		this.values = values;
	}

	/**
	 * The object of these values, in the order of the shape's names.
	 * @param shape the names
	 * @param values as many values as the shape has names
	 * @return the object
	 */
	static CompactObject of(Shape shape, JsonValue[] values) {
		return new CompactObject(shape, values);
	}

	Shape shape() {
		return this.shape;
	}

	/**
	 * A value by position.
	 * @param index the position of its name in the shape
	 * @return the value
	 */
	JsonValue value(int index) {
		return this.values[index];
	}

	@Override
	public ValueType getValueType() {
		return ValueType.OBJECT;
	}

	@Override
	public int size() {
		return this.values.length;
	}

	@Override
	public boolean isEmpty() {
		return this.values.length == 0;
	}

	@Override
	public boolean containsValue(Object value) {
		return Arrays.asList(this.values).contains(value);
	}

	@Override
	public JsonValue put(String key, JsonValue value) {
		throw new UnsupportedOperationException();
	}

	@Override
	public JsonValue remove(Object key) {
		throw new UnsupportedOperationException();
	}

	@Override
	public void putAll(Map<? extends String, ? extends JsonValue> members) {
		throw new UnsupportedOperationException();
	}

	@Override
	public void clear() {
		throw new UnsupportedOperationException();
	}

	@Override
	public Set<String> keySet() {
		return new AbstractSet<>() {

			@Override
			public Iterator<String> iterator() {
				return Arrays.asList(CompactObject.this.shape.names).iterator();
			}

			@Override
			public boolean contains(Object key) {
				return containsKey(key);
			}

			@Override
			public int size() {
				return CompactObject.this.values.length;
			}

		};
	}

	@Override
	public Collection<JsonValue> values() {
		return Collections.unmodifiableList(Arrays.asList(this.values));
	}

	@Override
	public boolean containsKey(Object key) {
		return key instanceof String name && this.shape.indexOf(name) >= 0;
	}

	@Override
	public JsonValue get(Object key) {
		int index = (key instanceof String name) ? this.shape.indexOf(name) : -1;
		return (index >= 0) ? this.values[index] : null;
	}

	@Override
	public Set<Entry<String, JsonValue>> entrySet() {
		return new AbstractSet<>() {

			@Override
			public Iterator<Entry<String, JsonValue>> iterator() {
				return new Iterator<>() {

					private int next;

					@Override
					public boolean hasNext() {
						return this.next < CompactObject.this.values.length;
					}

					@Override
					public Entry<String, JsonValue> next() {
						if (!hasNext()) {
							throw new NoSuchElementException();
						}
						int index = this.next++;
						return new SimpleImmutableEntry<>(CompactObject.this.shape.names[index],
								CompactObject.this.values[index]);
					}

				};
			}

			@Override
			public int size() {
				return CompactObject.this.values.length;
			}

		};
	}

	/**
	 * Two objects of the same names in the same order (objects of one shape, or of two
	 * versions of a document) compare their values pairwise: the diff of a polled
	 * document compares each element with its previous version first.
	 */
	@Override
	public boolean equals(Object other) {
		if (this == other) {
			return true;
		}
		if (other instanceof CompactObject that && this.shape.sameNames(that.shape)) {
			return Arrays.equals(this.values, that.values);
		}
		if (!(other instanceof Map<?, ?> map) || map.size() != this.values.length) {
			return false;
		}
		// What Map.equals is (no value here is null), and as AbstractMap's, false for a
		// map that cannot be asked for these keys.
		try {
			for (int i = 0; i < this.values.length; i++) {
				if (!this.values[i].equals(map.get(this.shape.names[i]))) {
					return false;
				}
			}
			return true;
		}
		catch (ClassCastException | NullPointerException ex) {
			return false;
		}
	}

	@Override
	public int hashCode() {
		int hash = 0;
		for (int i = 0; i < this.values.length; i++) {
			hash += this.shape.names[i].hashCode() ^ this.values[i].hashCode();
		}
		return hash;
	}

	@Override
	public JsonArray getJsonArray(String name) {
		return (JsonArray) get(name);
	}

	@Override
	public JsonObject getJsonObject(String name) {
		return (JsonObject) get(name);
	}

	@Override
	public JsonNumber getJsonNumber(String name) {
		return (JsonNumber) get(name);
	}

	@Override
	public JsonString getJsonString(String name) {
		return (JsonString) get(name);
	}

	@Override
	public String getString(String name) {
		return getJsonString(name).getString();
	}

	@Override
	public String getString(String name, String defaultValue) {
		return (get(name) instanceof JsonString string) ? string.getString() : defaultValue;
	}

	@Override
	public int getInt(String name) {
		return getJsonNumber(name).intValue();
	}

	@Override
	public int getInt(String name, int defaultValue) {
		return (get(name) instanceof JsonNumber number) ? number.intValue() : defaultValue;
	}

	@Override
	public boolean getBoolean(String name) {
		JsonValue value = get(name);
		if (value == null) {
			throw new NullPointerException("no member " + name);
		}
		return AbstractJsonArray.bool(value);
	}

	@Override
	public boolean getBoolean(String name, boolean defaultValue) {
		return AbstractJsonArray.bool(get(name), defaultValue);
	}

	@Override
	public boolean isNull(String name) {
		JsonValue value = get(name);
		if (value == null) {
			throw new NullPointerException("no member " + name);
		}
		return value.getValueType() == ValueType.NULL;
	}

	@Override
	public String toString() {
		return new String(JsonPatches.write(this), StandardCharsets.UTF_8);
	}

	/**
	 * The shapes of one document being read: each made once and shared by every object of
	 * the document with the same names in the same order. The last shape read at each
	 * depth is offered first to the next object at that depth (the next element of an
	 * array of like objects), whose names are then compared as they come rather than
	 * collected and looked up.
	 */
	static final class Shapes {

		private final Map<List<String>, Shape> byNames = new HashMap<>();

		private Shape[] lastAt = new Shape[8];

		/**
		 * The last shape read at a depth.
		 * @param depth the depth, 0 for the document
		 * @return the shape, or {@code null}
		 */
		Shape last(int depth) {
			return (depth < this.lastAt.length) ? this.lastAt[depth] : null;
		}

		void last(int depth, Shape shape) {
			if (depth >= this.lastAt.length) {
				this.lastAt = Arrays.copyOf(this.lastAt, Math.max(depth + 1, this.lastAt.length * 2));
			}
			this.lastAt[depth] = shape;
		}

		/**
		 * The shape of these names.
		 * @param names the member names in order
		 * @return the shape, or {@code null} when a name repeats (the caller keeps the
		 * last value, as Parsson's builder does)
		 */
		Shape of(List<String> names) {
			Shape shape = this.byNames.get(names);
			if (shape == null) {
				shape = Shape.of(names.toArray(String[]::new));
				if (shape == null) {
					return null;
				}
				this.byNames.put(List.of(shape.names), shape);
			}
			return shape;
		}

	}

	/**
	 * The names of an object, in order, with an index by name when they are many.
	 */
	static final class Shape {

		/** Up to this many names are looked up by scanning them. */
		private static final int SCANNED = 8;

		private final String[] names;

		private final Map<String, Integer> index;

		private Shape(String[] names, Map<String, Integer> index) {
			this.names = names;
			this.index = index;
		}

		/** The shape of these names, or {@code null} when one repeats. */
		static Shape of(String[] names) {
			if (names.length <= SCANNED) {
				for (int i = 1; i < names.length; i++) {
					for (int j = 0; j < i; j++) {
						if (names[i].equals(names[j])) {
							return null;
						}
					}
				}
				return new Shape(names, null);
			}
			Map<String, Integer> index = new HashMap<>(names.length * 2);
			for (int i = 0; i < names.length; i++) {
				if (index.putIfAbsent(names[i], i) != null) {
					return null;
				}
			}
			return new Shape(names, index);
		}

		int size() {
			return this.names.length;
		}

		String name(int index) {
			return this.names[index];
		}

		/**
		 * The first names.
		 * @param count how many
		 * @return a list to add more names to
		 */
		List<String> names(int count) {
			return new ArrayList<>(Arrays.asList(this.names).subList(0, count));
		}

		boolean sameNames(Shape other) {
			return this == other || Arrays.equals(this.names, other.names);
		}

		int indexOf(String name) {
			if (this.index != null) {
				Integer found = this.index.get(name);
				return (found != null) ? found : -1;
			}
			for (int i = 0; i < this.names.length; i++) {
				if (this.names[i].equals(name)) {
					return i;
				}
			}
			return -1;
		}

	}

}
