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

	static byte[] json(ProblemType type, String detail) {
		return JsonPatches.write(Json.createObjectBuilder()
			.add("type", type.type().toString())
			.add("title", type.title())
			.add("status", type.status().value())
			.add("detail", detail)
			.build());
	}

}
