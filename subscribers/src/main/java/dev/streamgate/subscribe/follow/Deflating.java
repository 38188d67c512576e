package dev.streamgate.subscribe.follow;

import java.io.ByteArrayOutputStream;
import java.util.zip.Deflater;

/**
 * Raw deflate of one message on its own, ending with a sync flush: what a compressed SSE
 * stream carries for each frame, and (without the flush's last four bytes) what a
 * WebSocket's permessage-deflate carries for each message. Each thread keeps its
 * deflater.
 */
public final class Deflating {

	private static final ThreadLocal<Deflater> DEFLATERS = ThreadLocal
		.withInitial(() -> new Deflater(Deflater.DEFAULT_COMPRESSION, true));

	private static final ThreadLocal<byte[]> CHUNKS = ThreadLocal.withInitial(() -> new byte[16 * 1024]);

	private Deflating() {
	}

	/**
	 * Compresses bytes with an empty dictionary and a sync flush, so that the result
	 * decodes after any other such segment and gives all its bytes at once.
	 * @param bytes the bytes
	 * @param level the deflate level, 1 to 9
	 * @return the raw deflate segment, ending with {@code 00 00 ff ff}
	 */
	public static byte[] syncFlushed(byte[] bytes, int level) {
		Deflater deflater = DEFLATERS.get();
		deflater.reset();
		deflater.setLevel(level);
		deflater.setInput(bytes);
		byte[] chunk = CHUNKS.get();
		ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length / 3 + 32);
		int written;
		do {
			written = deflater.deflate(chunk, 0, chunk.length, Deflater.SYNC_FLUSH);
			out.write(chunk, 0, written);
		}
		while (written == chunk.length || !deflater.needsInput());
		return out.toByteArray();
	}

}
