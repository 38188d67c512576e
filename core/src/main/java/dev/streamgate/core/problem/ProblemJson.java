package dev.streamgate.core.problem;

import java.util.LinkedHashMap;
import java.util.Map;

import tools.jackson.databind.json.JsonMapper;

/**
 * The RFC 9457 problem JSON of a {@link ProblemType}, for the places that write it as
 * bytes themselves: the security layer (it answers before any controller and its advice
 * run) and open streams (a {@code problem} event). Controllers' errors go through the
 * advice and Spring's {@code ProblemDetail} instead, with the same fields.
 */
public final class ProblemJson {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private ProblemJson() {
	}

	/**
	 * The problem as UTF-8 JSON.
	 * @param type the problem type: its {@code type} URI, {@code title} and
	 * {@code status}
	 * @param detail what happened, for a person
	 * @param instance the request path, or {@code null} (a stream's events have none)
	 * @return the JSON
	 */
	public static byte[] bytes(ProblemType type, String detail, String instance) {
		Map<String, Object> problem = new LinkedHashMap<>();
		problem.put("type", type.type().toString());
		problem.put("title", type.title());
		problem.put("status", type.status().value());
		problem.put("detail", detail);
		if (instance != null) {
			problem.put("instance", instance);
		}
		return JSON.writeValueAsBytes(problem);
	}

}
