package dev.streamgate.subscribe.sse;

import jakarta.json.Json;

import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.problem.ProblemType;

/**
 * Problem JSON documents sent inside {@code problem} events, once a stream is open.
 */
final class Problems {

	private Problems() {
	}

	static byte[] json(String type, String title, int status, String detail) {
		return JsonPatches.write(Json.createObjectBuilder()
			.add("type", ProblemType.BASE_URI + type)
			.add("title", title)
			.add("status", status)
			.add("detail", detail)
			.build());
	}

}
