package dev.streamgate.security;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

import dev.streamgate.core.problem.ProblemJson;
import dev.streamgate.core.problem.ProblemType;

/**
 * Writes the problem JSON of a request the security layer refused, since it answers
 * before any controller (and its advice) runs.
 */
final class ProblemWriter {

	private ProblemWriter() {
	}

	static Mono<Void> write(ServerWebExchange exchange, ProblemType type, String detail) {
		ServerHttpResponse response = exchange.getResponse();
		if (response.isCommitted()) {
			return Mono.empty();
		}
		response.setStatusCode(type.status());
		response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
		DataBuffer body = response.bufferFactory()
			.wrap(ProblemJson.bytes(type, detail, exchange.getRequest().getPath().value()));
		return response.writeWith(Mono.just(body));
	}

}
