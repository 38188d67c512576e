package dev.streamgate.core.patch;

import java.nio.charset.StandardCharsets;

import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class DocumentViewTests {

	private static final JsonStructure DOCUMENT = (JsonStructure) JsonPatches
		.read("{\"prices\":{\"EURUSD\":1.10,\"a/b\":{\"c~d\":[1,2]}},\"rows\":[{\"id\":1}]}"
			.getBytes(StandardCharsets.UTF_8));

	@Test
	void aViewSelectsThePartAtItsPointerOrNull() {
		assertThat(DocumentView.of("/prices/EURUSD", "pointer").select(DOCUMENT).toString()).isEqualTo("1.10");
		assertThat(DocumentView.of("/prices/a~1b/c~0d/1", "pointer").select(DOCUMENT).toString()).isEqualTo("2");
		assertThat(DocumentView.of("/rows/0", "pointer").select(DOCUMENT).toString()).isEqualTo("{\"id\":1}");
		assertThat(DocumentView.of("/rows/7", "pointer").select(DOCUMENT)).isEqualTo(JsonValue.NULL);
		assertThat(DocumentView.of("/rows/x", "pointer").select(DOCUMENT)).isEqualTo(JsonValue.NULL);
		assertThat(DocumentView.of("/prices/EURUSD/deeper", "pointer").select(DOCUMENT)).isEqualTo(JsonValue.NULL);
		assertThat(DocumentView.of("/", "pointer").select(DOCUMENT)).isEqualTo(JsonValue.NULL);
	}

	@Test
	void aChangeIsThePatchBetweenTwoPartsOrNothing() {
		JsonValue one = json("{\"EURUSD\":1.10,\"GBPUSD\":1.30}");
		assertThat(DocumentView.change(one, json("{\"GBPUSD\":1.30,\"EURUSD\":1.10}"))).isNull();
		assertThat(DocumentView.change(one, json("{\"EURUSD\":1.11,\"GBPUSD\":1.30}")))
			.hasToString("[{\"op\":\"replace\",\"path\":\"/EURUSD\",\"value\":1.11}]");
		// A part that is no structure, or changes kind, is replaced whole.
		assertThat(DocumentView.change(json("1.10"), json("1.11")))
			.hasToString("[{\"op\":\"replace\",\"path\":\"\",\"value\":1.11}]");
		assertThat(DocumentView.change(JsonValue.NULL, one))
			.hasToString("[{\"op\":\"replace\",\"path\":\"\",\"value\":{\"EURUSD\":1.10,\"GBPUSD\":1.30}}]");
	}

	@Test
	void aPointerFollowsRfc6901() {
		for (String bad : new String[] { "", "prices", "/a~2", "/a~", "/" + "x".repeat(1024) }) {
			assertThatExceptionOfType(StreamgateException.class).as(bad)
				.isThrownBy(() -> DocumentView.of(bad, "pointer"))
				.satisfies((ex) -> assertThat(ex.problemType()).isEqualTo(ProblemType.INVALID_PARAMETER));
		}
		assertThat(DocumentView.of("/a~0~1b//c", "pointer").pointer()).isEqualTo("/a~0~1b//c");
	}

	private static JsonValue json(String text) {
		return JsonPatches.read(text.getBytes(StandardCharsets.UTF_8));
	}

}
