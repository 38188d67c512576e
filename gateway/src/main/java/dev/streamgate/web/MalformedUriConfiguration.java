package dev.streamgate.web;

import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

import dev.streamgate.core.problem.ProblemJson;
import dev.streamgate.core.problem.ProblemType;

/**
 * Gives a request whose URI cannot be parsed (a {@code %} not followed by two hex digits,
 * say) a problem like every other 4xx: Spring's handler adapter answers it 400 with no
 * body before any filter or handler sees it.
 */
@Configuration(proxyBeanMethods = false)
public class MalformedUriConfiguration {

	private static final byte[] PROBLEM = ProblemJson.bytes(ProblemType.BAD_REQUEST,
			"The request's URI is malformed: a % not followed by two hexadecimal digits, or a character "
					+ "a URI cannot hold unescaped",
			null);

	@Bean
	NettyServerCustomizer malformedUriProblems() {
		return (server) -> server
			.mapHandle((handled, connection) -> handled.then(Mono.defer(() -> answerUnanswered(connection))));
	}

	/**
	 * Writes the problem when the exchange ended with a 400 and nothing sent: only the
	 * handler adapter leaves a request so; every other answer has its body.
	 */
	private static Mono<Void> answerUnanswered(Connection connection) {
		if (connection instanceof HttpServerResponse response && !response.hasSentHeaders()
				&& response.status().code() == 400
				&& !(connection instanceof HttpServerRequest request && request.method().name().equals("HEAD"))) {
			return response.header("Content-Type", "application/problem+json")
				.header("Content-Length", Integer.toString(PROBLEM.length))
				.sendByteArray(Mono.just(PROBLEM))
				.then();
		}
		return Mono.empty();
	}

}
