package dev.streamgate.subscribe.follow;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.streamgate.core.event.EventType;

import static org.assertj.core.api.Assertions.assertThat;

class EncoderTests {

	@Test
	void anEventIsEncodedOncePerEncoderHoweverManyEncodersThereAre() {
		Followed event = Followed.note("t", "1", EventType.EVENT, "{}".getBytes(StandardCharsets.UTF_8));
		List<Counting> encoders = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			encoders.add(new Counting("channel-" + i));
		}

		for (int round = 0; round < 3; round++) {
			for (Counting encoder : encoders) {
				assertThat(event.encoded(encoder)).isEqualTo(encoder.name + ":t");
			}
		}
		assertThat(encoders).allSatisfy((encoder) -> assertThat(encoder.encoded).hasValue(1));
	}

	@Test
	void anEncoderMadeAfterAnEventWasEncodedStillEncodesIt() {
		Counting first = new Counting("first");
		Followed event = Followed.note("t", "1", EventType.EVENT, "{}".getBytes(StandardCharsets.UTF_8));
		event.encoded(first);
		Counting later = new Counting("later");

		assertThat(event.encoded(later)).isEqualTo("later:t");
		assertThat(event.encoded(first)).isEqualTo("first:t");
		assertThat(first.encoded).hasValue(1);
		assertThat(later.encoded).hasValue(1);
	}

	@Test
	void theHeartbeatMadeAtClassInitialisationIsEncodedToo() {
		Counting encoder = new Counting("heartbeat");

		assertThat(Followed.HEARTBEAT.encoded(encoder)).isEqualTo("heartbeat:null");
		assertThat(Followed.HEARTBEAT.encoded(encoder)).isEqualTo("heartbeat:null");
		assertThat(encoder.encoded).hasValue(1);
	}

	private static final class Counting extends Encoder<String> {

		private final String name;

		private final AtomicInteger encoded = new AtomicInteger();

		Counting(String name) {
			this.name = name;
		}

		@Override
		protected String encode(Followed followed) {
			this.encoded.incrementAndGet();
			return this.name + ":" + followed.topicId();
		}

	}

}
