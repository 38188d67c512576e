package dev.streamgate.core.patch;

import java.math.BigDecimal;
import java.math.BigInteger;

import jakarta.json.JsonNumber;
import tools.jackson.core.JsonGenerator;

/**
 * An immutable JSON integer held in a primitive, the companion of {@link CompactObject}
 * for the numbers of the documents {@link JsonPatches} reads.
 * <p>
 * Parsson's integers take 32 bytes each and keep the {@code BigDecimal} that their
 * {@code equals} makes: in the live heap of a node polling 250 topics of 50 KB documents
 * (the reference row sse-2), its integers and their decimals came to 68 MB (77 MB for the
 * objects and arrays holding them), and a young collection copies those of every document
 * that is current. One of these takes 16 bytes ({@code int}) or 24 ({@code long}) and
 * compares without making a decimal. Equality and hash code are those of any
 * {@link JsonNumber}: those of {@link #bigDecimalValue()}, so it is equal to Parsson's
 * number of the same value.
 */
abstract sealed class CompactNumber implements JsonNumber permits CompactNumber.OfInt, CompactNumber.OfLong {

	static CompactNumber of(int value) {
		return new OfInt(value);
	}

	static CompactNumber of(long value) {
		return (value == (int) value) ? new OfInt((int) value) : new OfLong(value);
	}

	abstract long value();

	@Override
	public ValueType getValueType() {
		return ValueType.NUMBER;
	}

	@Override
	public boolean isIntegral() {
		return true;
	}

	@Override
	public int intValue() {
		return (int) value();
	}

	@Override
	public int intValueExact() {
		return Math.toIntExact(value());
	}

	@Override
	public long longValue() {
		return value();
	}

	@Override
	public long longValueExact() {
		return value();
	}

	@Override
	public BigInteger bigIntegerValue() {
		return BigInteger.valueOf(value());
	}

	@Override
	public BigInteger bigIntegerValueExact() {
		return BigInteger.valueOf(value());
	}

	@Override
	public double doubleValue() {
		return value();
	}

	@Override
	public BigDecimal bigDecimalValue() {
		return BigDecimal.valueOf(value());
	}

	void write(JsonGenerator generator) {
		generator.writeNumber(value());
	}

	@Override
	public boolean equals(Object other) {
		if (this == other) {
			return true;
		}
		if (other instanceof CompactNumber that) {
			return value() == that.value();
		}
		// An integer with a scale (1.0) is not equal to this one, as BigDecimal says.
		return other instanceof JsonNumber number && bigDecimalValue().equals(number.bigDecimalValue());
	}

	/**
	 * {@code bigDecimalValue().hashCode()}, without making the decimal: a value of scale
	 * 0 that fits a long hashes as {@link BigDecimal#hashCode()} computes it.
	 */
	@Override
	public int hashCode() {
		long value = value();
		if (value == Long.MIN_VALUE) {
			return bigDecimalValue().hashCode();
		}
		long magnitude = Math.abs(value);
		int hash = (int) (((int) (magnitude >>> 32)) * 31 + (magnitude & 0xFFFFFFFFL));
		return 31 * ((value < 0) ? -hash : hash);
	}

	@Override
	public String toString() {
		return Long.toString(value());
	}

	/** An integer that fits an {@code int}. */
	static final class OfInt extends CompactNumber {

		private final int value;

		private OfInt(int value) {
			this.value = value;
		}

		@Override
		long value() {
			return this.value;
		}

		@Override
		public int intValueExact() {
			return this.value;
		}

		@Override
		public Number numberValue() {
			return this.value;
		}

		@Override
		void write(JsonGenerator generator) {
			generator.writeNumber(this.value);
		}

	}

	/** An integer that needs a {@code long}. */
	static final class OfLong extends CompactNumber {

		private final long value;

		private OfLong(long value) {
			this.value = value;
		}

		@Override
		long value() {
			return this.value;
		}

		@Override
		public Number numberValue() {
			return this.value;
		}

	}

}
