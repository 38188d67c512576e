package dev.streamgate.security;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import dev.streamgate.core.problem.ProblemType;

/**
 * Writes the problem JSON of a request the security layer refused, since it answers
 * before any controller (and its advice) runs.
 */
final class ProblemWriter {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private ProblemWriter() {
	}

	static Mono<Void> write(ServerWebExchange exchange, ProblemType type, String detail) {
		ServerHttpResponse response = exchange.getResponse();
		if (response.isCommitted()) {
			return Mono.empty();
		}
		Map<String, Object> problem = new LinkedHashMap<>();
		problem.put("type", type.type().toString());
		problem.put("title", type.title());
		problem.put("status", type.status().value());
		problem.put("detail", detail);
		problem.put("instance", exchange.getRequest().getPath().value());
		response.setStatusCode(type.status());
		response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
		DataBuffer body = response.bufferFactory().wrap(JSON.writeValueAsBytes(problem));
		return response.writeWith(Mono.just(body));
	}

}
