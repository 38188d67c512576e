package dev.streamgate.mercure;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An update as the hub keeps it (JSON) and sends it (a Server-Sent Event).
 */
class UpdateTests {

	@Test
	void anUpdateReadsBackAsItWasWritten() {
		Update update = new Update("id-1", List.of("https://example.com/a", "urn:alt"), "data", true, "book", 2500L);
		assertThat(Update.parse(update.json())).isEqualTo(update);
		Update bare = new Update(null, List.of("t"), null, false, null, null);
		assertThat(new String(bare.json(), StandardCharsets.UTF_8)).isEqualTo("{\"topics\":[\"t\"],\"private\":false}");
		assertThat(Update.parse(bare.json())).isEqualTo(bare);
	}

	@Test
	void eventsThatAreNoUpdatesAreNone() {
		assertThat(Update.parse("{\"n\":1}".getBytes(StandardCharsets.UTF_8))).isNull();
		assertThat(Update.parse("[1,2]".getBytes(StandardCharsets.UTF_8))).isNull();
		assertThat(Update.parse("not json".getBytes(StandardCharsets.UTF_8))).isNull();
		assertThat(Update.parse("{\"topics\":[]}".getBytes(StandardCharsets.UTF_8))).isNull();
	}

	@Test
	void aHeadingReadsTheIdTopicsAndPrivacyOfAnUpdateAndNothingOfOtherEvents() {
		Update update = new Update("id-1", List.of("https://example.com/a", "urn:alt"), "big data", true, "book",
				2500L);
		assertThat(Update.heading(update.json()))
			.isEqualTo(new Update.Heading("id-1", List.of("https://example.com/a", "urn:alt"), true));
		assertThat(Update.heading("{\"n\":1}".getBytes(StandardCharsets.UTF_8))).isNull();
		assertThat(Update.heading("not json".getBytes(StandardCharsets.UTF_8))).isNull();
	}

	@Test
	void eachLineOfTheDataIsADataLine() {
		Update update = new Update(null, List.of("t"), "one\ntwo\r\nthree\rfour\n", false, "book", 100L);
		assertThat(new String(update.frame("urn:x:1"), StandardCharsets.UTF_8)).isEqualTo("""
				id: urn:x:1
				event: book
				retry: 100
				data: one
				data: two
				data: three
				data: four
				data:\s

				""");
	}

	@Test
	void anUpdateWithoutDataStillHasADataLine() {
		Update update = new Update("a", List.of("t"), null, false, null, null);
		assertThat(new String(update.frame("a"), StandardCharsets.UTF_8)).isEqualTo("id: a\ndata: \n\n");
	}

}
