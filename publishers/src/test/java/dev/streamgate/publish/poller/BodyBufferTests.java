package dev.streamgate.publish.poller;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BodyBufferTests {

	@Test
	void anAnswerOfItsDeclaredLengthIsReadIntoOneArrayThatIsHandedOnAsItIs() {
		byte[] answer = random(50_000);
		BodyBuffer body = new BodyBuffer(answer.length, 1_000_000);
		for (ByteBuf chunk : chunks(answer, 8192)) {
			assertThat(body.add(chunk)).isTrue();
			assertThat(chunk.readableBytes()).isZero();
			chunk.release();
		}
		byte[] bytes = body.bytes();
		assertThat(bytes).isEqualTo(answer);
		assertThat(body.bytes()).isSameAs(bytes);
	}

	@Test
	void anAnswerOfNoDeclaredLengthGrowsAsItComes() {
		byte[] answer = random(100_001);
		BodyBuffer body = new BodyBuffer(-1, 1_000_000);
		for (ByteBuf chunk : chunks(answer, 3_000)) {
			assertThat(body.add(chunk)).isTrue();
		}
		assertThat(body.bytes()).isEqualTo(answer);
	}

	@Test
	void anAnswerShorterOrLongerThanDeclaredIsReadAsItCame() {
		BodyBuffer shorter = new BodyBuffer(100, 1_000);
		shorter.add(Unpooled.copiedBuffer("{\"a\":1}", StandardCharsets.UTF_8));
		assertThat(new String(shorter.bytes(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
		BodyBuffer longer = new BodyBuffer(2, 1_000);
		longer.add(Unpooled.copiedBuffer("[1,", StandardCharsets.UTF_8));
		longer.add(Unpooled.copiedBuffer("2]", StandardCharsets.UTF_8));
		assertThat(new String(longer.bytes(), StandardCharsets.UTF_8)).isEqualTo("[1,2]");
		assertThat(new BodyBuffer(0, 1_000).bytes()).isEmpty();
	}

	@Test
	void aChunkThatWouldPassTheLimitIsRefusedAndNothingOfItTaken() {
		BodyBuffer body = new BodyBuffer(-1, 10);
		assertThat(body.add(Unpooled.wrappedBuffer(new byte[] { 1, 2, 3, 4, 5, 6 }))).isTrue();
		ByteBuf over = Unpooled.wrappedBuffer(new byte[] { 7, 8, 9, 10, 11 });
		assertThat(body.add(over)).isFalse();
		assertThat(over.readableBytes()).isEqualTo(5);
		assertThat(body.add(Unpooled.wrappedBuffer(new byte[] { 7, 8, 9, 10 }))).isTrue();
		assertThat(body.bytes()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
	}

	private static byte[] random(int length) {
		byte[] bytes = new byte[length];
		new SplittableRandom(length).nextBytes(bytes);
		return bytes;
	}

	private static ByteBuf[] chunks(byte[] bytes, int size) {
		int count = (bytes.length + size - 1) / size;
		ByteBuf[] chunks = new ByteBuf[count];
		for (int i = 0; i < count; i++) {
			chunks[i] = Unpooled
				.copiedBuffer(Arrays.copyOfRange(bytes, i * size, Math.min(bytes.length, (i + 1) * size)));
		}
		return chunks;
	}

}
