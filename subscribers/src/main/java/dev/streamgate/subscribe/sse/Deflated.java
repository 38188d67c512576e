package dev.streamgate.subscribe.sse;

import java.util.concurrent.atomic.LongAdder;
import java.util.zip.Adler32;
import java.util.zip.CRC32;

import dev.streamgate.subscribe.follow.Deflating;

/**
 * One frame compressed on its own, for every connection that asked for a compressed
 * stream: a raw deflate segment that starts with an empty dictionary and ends with a sync
 * flush, so that it decodes after any other segment and reaches the client at once; and
 * what a connection needs to keep its stream's checksum without reading the frame again
 * (the frame's CRC-32 and Adler-32, and the operator that moves a CRC-32 past the frame's
 * bytes, as zlib's {@code crc32_combine} does).
 *
 * @param segment the compressed bytes
 * @param length the frame's length
 * @param crc32 the frame's CRC-32
 * @param adler32 the frame's Adler-32
 * @param crc32Shift the GF(2) matrix that appends {@code length} zero bytes to a CRC-32
 */
record Deflated(byte[] segment, int length, int crc32, int adler32, int[] crc32Shift) {

	/** Frames compressed on this node, for the count per event that a metric shows. */
	static final LongAdder COMPRESSIONS = new LongAdder();

	/** The reflected CRC-32 polynomial. */
	private static final int POLYNOMIAL = 0xedb88320;

	/**
	 * Compresses a frame.
	 * @param bytes the frame
	 * @param level the deflate level, 1 to 9
	 * @return the segment and the frame's checksums
	 */
	static Deflated of(byte[] bytes, int level) {
		byte[] segment = Deflating.syncFlushed(bytes, level);
		COMPRESSIONS.increment();
		CRC32 crc = new CRC32();
		crc.update(bytes);
		Adler32 adler = new Adler32();
		adler.update(bytes);
		return new Deflated(segment, bytes.length, (int) crc.getValue(), (int) adler.getValue(),
				zerosOperator(bytes.length));
	}

	/**
	 * The CRC-32 of a stream's bytes followed by this frame's.
	 * @param before the CRC-32 of the bytes before
	 * @return the CRC-32 of both
	 */
	int crc32After(int before) {
		return times(this.crc32Shift, before) ^ this.crc32;
	}

	/**
	 * The Adler-32 of a stream's bytes followed by this frame's (zlib's
	 * {@code adler32_combine}).
	 * @param before the Adler-32 of the bytes before
	 * @return the Adler-32 of both
	 */
	int adler32After(int before) {
		final long base = 65521;
		long remainder = this.length % base;
		long sum1 = before & 0xffff;
		long sum2 = (remainder * sum1) % base;
		sum1 += (this.adler32 & 0xffff) + base - 1;
		sum2 += ((before >>> 16) & 0xffff) + ((this.adler32 >>> 16) & 0xffff) + base - remainder;
		if (sum1 >= base) {
			sum1 -= base;
		}
		if (sum1 >= base) {
			sum1 -= base;
		}
		if (sum2 >= (base << 1)) {
			sum2 -= (base << 1);
		}
		if (sum2 >= base) {
			sum2 -= base;
		}
		return (int) (sum1 | (sum2 << 16));
	}

	/**
	 * The operator that appends {@code length} zero bytes to a CRC-32 register: the
	 * operator of one zero bit squared into those of 2, 4, 8 ... bits, multiplied for the
	 * bits of the length, as zlib's {@code crc32_combine} does, but once per frame rather
	 * than once per connection.
	 */
	private static int[] zerosOperator(long length) {
		int[] result = identity();
		int[] power = new int[32];
		// One zero bit.
		power[0] = POLYNOMIAL;
		for (int n = 1, row = 1; n < 32; n++, row <<= 1) {
			power[n] = row;
		}
		// Eight zero bits: one zero byte.
		power = square(square(square(power)));
		for (long bytes = length; bytes != 0; bytes >>>= 1) {
			if ((bytes & 1) != 0) {
				result = multiply(power, result);
			}
			if (bytes > 1) {
				power = square(power);
			}
		}
		return result;
	}

	private static int[] identity() {
		int[] matrix = new int[32];
		for (int n = 0; n < 32; n++) {
			matrix[n] = 1 << n;
		}
		return matrix;
	}

	private static int[] square(int[] matrix) {
		return multiply(matrix, matrix);
	}

	/** The matrix of applying {@code second} after {@code first}. */
	private static int[] multiply(int[] second, int[] first) {
		int[] product = new int[32];
		for (int n = 0; n < 32; n++) {
			product[n] = times(second, first[n]);
		}
		return product;
	}

	private static int times(int[] matrix, int vector) {
		int sum = 0;
		for (int i = 0, v = vector; v != 0; i++, v >>>= 1) {
			if ((v & 1) != 0) {
				sum ^= matrix[i];
			}
		}
		return sum;
	}

}
