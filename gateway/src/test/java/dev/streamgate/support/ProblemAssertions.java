package dev.streamgate.support;

import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Checks that an answer is an RFC 9457 problem of the expected status and type.
 */
public final class ProblemAssertions {

	private ProblemAssertions() {
	}

	/**
	 * Expects a problem+json answer.
	 * @param response the answer
	 * @param status the HTTP status
	 * @param type the problem type's last path segment, e.g. {@code topic-not-found}
	 */
	public static void expectProblem(WebTestClient.ResponseSpec response, int status, String type) {
		response.expectStatus()
			.isEqualTo(status)
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody()
			.jsonPath("$.type")
			.isEqualTo("https://streamgate.dev/problems/" + type)
			.jsonPath("$.status")
			.isEqualTo(status)
			.jsonPath("$.title")
			.isNotEmpty()
			.jsonPath("$.detail")
			.isNotEmpty();
	}

}
