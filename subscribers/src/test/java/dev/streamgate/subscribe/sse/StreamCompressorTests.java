package dev.streamgate.subscribe.sse;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;

import org.junit.jupiter.api.Test;

import dev.streamgate.subscribe.sse.StreamCompressor.Encoding;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compressed streams made of frames compressed once each, read back with the JDK's own
 * decoders, which check the trailer's checksum and length.
 */
class StreamCompressorTests {

	private static final Random RANDOM = new Random(42);

	private static Frame frame(int size) {
		StringBuilder json = new StringBuilder("{\"rows\":[");
		while (json.length() < size) {
			json.append("{\"sku\":\"A-")
				.append(RANDOM.nextInt(1000))
				.append("\",\"price\":")
				.append(RANDOM.nextInt(100000))
				.append("},");
		}
		json.setCharAt(json.length() - 1, ']');
		json.append('}');
		return Frame.of("t:" + size, dev.streamgate.core.event.EventType.EVENT,
				json.toString().getBytes(StandardCharsets.UTF_8), 1);
	}

	private static List<Frame> frames() {
		List<Frame> frames = new ArrayList<>();
		frames.add(Frame.retry(3000));
		for (int size : new int[] { 10, 200, 5_000, 50_000, 1, 70_000, 300 }) {
			frames.add(frame(size));
			frames.add(Frame.HEARTBEAT);
		}
		return frames;
	}

	private static byte[] stream(Encoding encoding, List<Frame> frames, boolean finished) {
		StreamCompressor compressor = new StreamCompressor(encoding, 6);
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		frames.forEach((frame) -> out.writeBytes(compressor.next(frame)));
		if (finished) {
			out.writeBytes(compressor.finish());
		}
		return out.toByteArray();
	}

	private static byte[] plain(List<Frame> frames) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		frames.forEach((frame) -> out.writeBytes(frame.bytes()));
		return out.toByteArray();
	}

	@Test
	void aGzipStreamDecodesWithItsChecksumAndLengthRight() throws IOException {
		List<Frame> frames = frames();
		try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(stream(Encoding.GZIP, frames, true)))) {
			assertThat(in.readAllBytes()).isEqualTo(plain(frames));
		}
	}

	@Test
	void aDeflateStreamIsZlibWithItsAdler32Right() throws IOException {
		List<Frame> frames = frames();
		byte[] compressed = stream(Encoding.DEFLATE, frames, true);
		Inflater inflater = new Inflater();
		try (InputStream in = new InflaterInputStream(new ByteArrayInputStream(compressed), inflater)) {
			assertThat(in.readAllBytes()).isEqualTo(plain(frames));
		}
		assertThat(inflater.finished()).as("the zlib trailer was read and its checksum matched").isTrue();
	}

	@Test
	void anEmptyStreamEndsAsAValidOne() throws IOException {
		try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(stream(Encoding.GZIP, List.of(), true)))) {
			assertThat(in.readAllBytes()).isEmpty();
		}
	}

	@Test
	void eachFrameDecodesAsSoonAsItsSegmentArrives() throws Exception {
		List<Frame> frames = frames();
		StreamCompressor compressor = new StreamCompressor(Encoding.DEFLATE, 6);
		Inflater inflater = new Inflater();
		byte[] out = new byte[200_000];
		for (Frame frame : frames) {
			inflater.setInput(compressor.next(frame));
			int decoded = 0;
			int n;
			while ((n = inflater.inflate(out, decoded, out.length - decoded)) > 0) {
				decoded += n;
			}
			assertThat(new String(out, 0, decoded, StandardCharsets.UTF_8))
				.isEqualTo(new String(frame.bytes(), StandardCharsets.UTF_8));
		}
	}

	@Test
	void aFrameIsCompressedOnceForEveryConnection() throws IOException {
		Frame shared = frame(20_000);
		long before = Deflated.COMPRESSIONS.sum();
		List<byte[]> streams = new ArrayList<>();
		for (int connection = 0; connection < 100; connection++) {
			StreamCompressor compressor = new StreamCompressor(Encoding.GZIP, 6);
			ByteArrayOutputStream out = new ByteArrayOutputStream();
			out.writeBytes(compressor.next(shared));
			out.writeBytes(compressor.finish());
			streams.add(out.toByteArray());
		}
		assertThat(Deflated.COMPRESSIONS.sum() - before).isEqualTo(1);
		for (byte[] stream : streams) {
			try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(stream))) {
				assertThat(in.readAllBytes()).isEqualTo(shared.bytes());
			}
		}
		assertThat(shared.deflated(6).segment().length).isLessThan(shared.bytes().length / 3);
	}

	@Test
	void theCodingFollowsAcceptEncodingAndItsQualities() {
		assertThat(Encoding.negotiate(null)).isNull();
		assertThat(Encoding.negotiate(List.of("gzip, deflate, br, zstd"))).isEqualTo(Encoding.GZIP);
		assertThat(Encoding.negotiate(List.of("deflate"))).isEqualTo(Encoding.DEFLATE);
		assertThat(Encoding.negotiate(List.of("gzip;q=0, deflate;q=0.5"))).isEqualTo(Encoding.DEFLATE);
		assertThat(Encoding.negotiate(List.of("br", "*;q=0.1"))).isEqualTo(Encoding.GZIP);
		assertThat(Encoding.negotiate(List.of("*;q=0.1, gzip;q=0"))).isEqualTo(Encoding.DEFLATE);
		assertThat(Encoding.negotiate(List.of("identity"))).isNull();
		assertThat(Encoding.negotiate(List.of("gzip;q=0"))).isNull();
		assertThat(Encoding.negotiate(List.of("GZIP;Q=1"))).isEqualTo(Encoding.GZIP);
		assertThat(Encoding.negotiate(List.of("br, zstd"))).isNull();
	}

}
