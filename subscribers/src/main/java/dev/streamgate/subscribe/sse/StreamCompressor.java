package dev.streamgate.subscribe.sse;

import java.util.List;
import java.util.Locale;

/**
 * One connection's compressed stream ({@code Content-Encoding: gzip} or {@code deflate}):
 * the format's header once, then each frame's shared segment
 * ({@link Frame#deflated(int)}), and when the stream ends the last block and the format's
 * trailer, its checksum kept from the frames' own without compressing or reading them
 * again. What a connection pays per frame is a checksum step; the compression itself is
 * done once per frame for every connection.
 */
final class StreamCompressor {

	/** gzip: magic, deflate, no flags, no time, no extra flags, unknown OS. */
	private static final byte[] GZIP_HEADER = { 0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff };

	/** zlib: deflate with a 32 KiB window, default level, no dictionary. */
	private static final byte[] ZLIB_HEADER = { 0x78, (byte) 0x9c };

	/** A last, empty block of fixed Huffman codes. */
	private static final byte[] LAST_BLOCK = { 3, 0 };

	private final Encoding encoding;

	private final int level;

	private boolean started;

	private int crc32;

	private int adler32 = 1;

	private long length;

	/**
	 * A compressed stream.
	 * @param encoding its coding
	 * @param level the deflate level its frames are compressed at (once for every stream)
	 */
	StreamCompressor(Encoding encoding, int level) {
		this.encoding = encoding;
		this.level = level;
	}

	/**
	 * The bytes that carry a frame.
	 * @param frame the frame
	 * @return its segment, after the header for the first frame
	 */
	byte[] next(Frame frame) {
		Deflated deflated = frame.deflated(this.level);
		this.crc32 = deflated.crc32After(this.crc32);
		this.adler32 = deflated.adler32After(this.adler32);
		this.length += deflated.length();
		byte[] segment = deflated.segment();
		if (this.started) {
			return segment;
		}
		this.started = true;
		return concat(header(), segment);
	}

	/**
	 * The end of the stream: the last block and the trailer.
	 * @return the bytes
	 */
	byte[] finish() {
		byte[] trailer;
		if (this.encoding == Encoding.GZIP) {
			trailer = new byte[] { (byte) this.crc32, (byte) (this.crc32 >>> 8), (byte) (this.crc32 >>> 16),
					(byte) (this.crc32 >>> 24), (byte) this.length, (byte) (this.length >>> 8),
					(byte) (this.length >>> 16), (byte) (this.length >>> 24) };
		}
		else {
			trailer = new byte[] { (byte) (this.adler32 >>> 24), (byte) (this.adler32 >>> 16),
					(byte) (this.adler32 >>> 8), (byte) this.adler32 };
		}
		byte[] end = concat(LAST_BLOCK, trailer);
		if (this.started) {
			return end;
		}
		this.started = true;
		return concat(header(), end);
	}

	private byte[] header() {
		return (this.encoding == Encoding.GZIP) ? GZIP_HEADER : ZLIB_HEADER;
	}

	private static byte[] concat(byte[] first, byte[] second) {
		byte[] both = new byte[first.length + second.length];
		System.arraycopy(first, 0, both, 0, first.length);
		System.arraycopy(second, 0, both, first.length, second.length);
		return both;
	}

	/** The content codings a stream can be sent in. */
	enum Encoding {

		/** RFC 1952. */
		GZIP("gzip"),

		/** RFC 1950 (zlib), which HTTP calls deflate. */
		DEFLATE("deflate");

		private final String token;

		Encoding(String token) {
			this.token = token;
		}

		/**
		 * The name in {@code Content-Encoding}.
		 * @return the token
		 */
		String token() {
			return this.token;
		}

		/**
		 * The coding to answer a request's {@code Accept-Encoding} with: gzip when it is
		 * acceptable (also through {@code *}), else deflate, else none (identity).
		 * @param acceptEncoding the header's values, or {@code null}
		 * @return the coding, or {@code null} for an uncompressed stream
		 */
		static Encoding negotiate(List<String> acceptEncoding) {
			if (acceptEncoding == null) {
				return null;
			}
			Double gzip = null;
			Double deflate = null;
			Double any = null;
			for (String header : acceptEncoding) {
				for (String item : header.split(",")) {
					String[] parts = item.split(";");
					String coding = parts[0].trim().toLowerCase(Locale.ROOT);
					double quality = quality(parts);
					switch (coding) {
						case "gzip", "x-gzip" -> gzip = quality;
						case "deflate" -> deflate = quality;
						case "*" -> any = quality;
						default -> {
						}
					}
				}
			}
			if (acceptable(gzip, any)) {
				return GZIP;
			}
			return acceptable(deflate, any) ? DEFLATE : null;
		}

		private static boolean acceptable(Double named, Double any) {
			return (named != null) ? named > 0 : (any != null && any > 0);
		}

		private static double quality(String[] parts) {
			for (int i = 1; i < parts.length; i++) {
				String parameter = parts[i].trim();
				if (parameter.length() > 2 && (parameter.charAt(0) == 'q' || parameter.charAt(0) == 'Q')
						&& parameter.charAt(1) == '=') {
					try {
						return Double.parseDouble(parameter.substring(2).trim());
					}
					catch (NumberFormatException ex) {
						return 0;
					}
				}
			}
			return 1;
		}

	}

}
