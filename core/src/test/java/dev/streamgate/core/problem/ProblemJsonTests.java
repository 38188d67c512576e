package dev.streamgate.core.problem;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ProblemJsonTests {

	@Test
	void aProblemCarriesItsTypesUriTitleAndStatus() {
		String json = new String(ProblemJson.bytes(ProblemType.TOPIC_DELETED, "Topic 'a' was deleted", null),
				StandardCharsets.UTF_8);
		assertThat(json)
			.isEqualTo("{\"type\":\"https://streamgate.dev/problems/topic-deleted\",\"title\":\"Topic deleted\","
					+ "\"status\":410,\"detail\":\"Topic 'a' was deleted\"}");
	}

	@Test
	void theInstanceIsThereWhenThereIsARequest() {
		String json = new String(ProblemJson.bytes(ProblemType.FORBIDDEN, "no \"rights\"", "/api/v1/topics"),
				StandardCharsets.UTF_8);
		assertThat(json).endsWith("\"detail\":\"no \\\"rights\\\"\",\"instance\":\"/api/v1/topics\"}")
			.contains("\"status\":403");
	}

}
