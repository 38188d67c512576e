package dev.streamgate.subscribe.sse;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import dev.streamgate.core.event.EventType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An event's SSE frame: one {@code data:} line per line of its JSON, whatever ends the
 * lines, and the frame's array exactly as long as the frame.
 */
class FrameTests {

	@Test
	void jsonOnOneLineIsOneDataLine() {
		Frame frame = Frame.of("7-3", EventType.PATCH, bytes("[{\"op\":\"remove\",\"path\":\"/a\"}]"), 42);
		assertThat(text(frame)).isEqualTo("id: 7-3\nevent: patch\ndata: [{\"op\":\"remove\",\"path\":\"/a\"}]\n\n");
		assertThat(frame.carriesEvent()).isTrue();
		assertThat(text(Frame.of(null, EventType.SNAPSHOT, bytes("{}"), 42)))
			.isEqualTo("event: snapshot\ndata: {}\n\n");
	}

	@Test
	void eachLineBreakOfTheJsonStartsADataLine() {
		assertThat(text(Frame.of(null, EventType.SNAPSHOT, bytes("{\n  \"a\": 1\n}"), 1)))
			.isEqualTo("event: snapshot\ndata: {\ndata:   \"a\": 1\ndata: }\n\n");
		assertThat(text(Frame.of(null, EventType.SNAPSHOT, bytes("{\r\n\"a\": 1\r\n}"), 1)))
			.isEqualTo("event: snapshot\ndata: {\ndata: \"a\": 1\ndata: }\n\n");
		assertThat(text(Frame.of("1", EventType.SNAPSHOT, bytes("{\r\"a\":\r1}\n"), 1)))
			.isEqualTo("id: 1\nevent: snapshot\ndata: {\ndata: \"a\":\ndata: 1}\ndata: \n\n");
	}

	@Test
	void anIdPutInFrontKeepsTheRest() {
		Frame frame = Frame.of(null, EventType.PATCH, bytes("[]"), 5).withId("9-1");
		assertThat(text(frame)).isEqualTo("id: 9-1\nevent: patch\ndata: []\n\n");
		assertThat(frame.publishedAt()).isEqualTo(5);
	}

	private static byte[] bytes(String json) {
		return json.getBytes(StandardCharsets.UTF_8);
	}

	private static String text(Frame frame) {
		return new String(frame.bytes(), StandardCharsets.UTF_8);
	}

}
