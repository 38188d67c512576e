package dev.streamgate.web;

import java.nio.channels.ClosedChannelException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.TypeMismatchException;
import org.springframework.core.MethodParameter;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.http.InvalidMediaTypeException;
import io.netty.handler.timeout.ReadTimeoutException;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.reactive.result.method.annotation.ResponseEntityExceptionHandler;
import org.springframework.security.web.server.firewall.ServerExchangeRejectedException;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebInputException;
import org.springframework.web.reactive.resource.NoResourceFoundException;
import org.springframework.web.util.DisconnectedClientHelper;
import reactor.core.publisher.Mono;

import dev.streamgate.core.problem.JsonErrors;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;

/**
 * The one place that turns exceptions into RFC 9457 answers, each with a streamgate
 * problem type.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
public class ProblemHandler extends ResponseEntityExceptionHandler {

	private static final Log logger = LogFactory.getLog(ProblemHandler.class);

	@ExceptionHandler(DataBufferLimitException.class)
	Mono<ResponseEntity<Object>> handleTooLarge(DataBufferLimitException ex, ServerWebExchange exchange) {
		return problem(ProblemType.PAYLOAD_TOO_LARGE, "The request body is larger than this endpoint accepts",
				exchange);
	}

	/**
	 * Spring Security's firewall refuses odd names (control or unassigned characters).
	 */
	@ExceptionHandler(ServerExchangeRejectedException.class)
	Mono<ResponseEntity<Object>> handleRejected(ServerExchangeRejectedException ex, ServerWebExchange exchange) {
		return problem(ProblemType.BAD_REQUEST,
				"The request was refused: a parameter or header name holds characters that are not allowed", exchange);
	}

	/**
	 * A client that stops sending its body meets the read timeouts of
	 * {@code streamgate.http}.
	 */
	@ExceptionHandler(ReadTimeoutException.class)
	Mono<ResponseEntity<Object>> handleReadTimeout(ReadTimeoutException ex, ServerWebExchange exchange) {
		return problem(ProblemType.REQUEST_TIMEOUT, "The request body did not arrive in time", exchange);
	}

	/**
	 * A Content-Type header that does not parse (an unknown charset, say).
	 */
	@ExceptionHandler(InvalidMediaTypeException.class)
	Mono<ResponseEntity<Object>> handleInvalidMediaType(InvalidMediaTypeException ex, ServerWebExchange exchange) {
		return problem(ProblemType.UNSUPPORTED_MEDIA_TYPE, "The Content-Type is not valid: " + ex.getMessage(),
				exchange);
	}

	/**
	 * A path that no endpoint serves: said in the client's terms, not as the static
	 * resource handler that looked last.
	 */
	@Override
	protected Mono<ResponseEntity<Object>> handleResponseStatusException(ResponseStatusException ex,
			HttpHeaders headers, HttpStatusCode status, ServerWebExchange exchange) {
		if (ex instanceof NoResourceFoundException) {
			return problem(ProblemType.NOT_FOUND, "Nothing is served at " + exchange.getRequest().getPath().value()
					+ "; the API is under /api/v1 (its document: /v3/api-docs)", exchange);
		}
		return super.handleResponseStatusException(ex, headers, status, exchange);
	}

	/**
	 * A query parameter, header or path variable that does not convert to what the
	 * endpoint takes: named, with what it must be, without the converter's Java types.
	 */
	@Override
	protected Mono<ResponseEntity<Object>> handleServerWebInputException(ServerWebInputException ex,
			HttpHeaders headers, HttpStatusCode status, ServerWebExchange exchange) {
		MethodParameter parameter = ex.getMethodParameter();
		if (ex.getCause() instanceof TypeMismatchException mismatch && parameter != null
				&& mismatch.getRequiredType() != null) {
			return problem(
					ProblemType.INVALID_PARAMETER, "'" + parameter.getParameterName() + "' must be "
							+ JsonErrors.expected(mismatch.getRequiredType()) + ", not '" + mismatch.getValue() + "'",
					exchange);
		}
		return super.handleServerWebInputException(ex, headers, status, exchange);
	}

	private Mono<ResponseEntity<Object>> problem(ProblemType type, String detail, ServerWebExchange exchange) {
		StreamgateException problem = new StreamgateException(type, detail);
		return handleErrorResponseException(problem, problem.getHeaders(), problem.getStatusCode(), exchange);
	}

	@ExceptionHandler(Exception.class)
	Mono<ResponseEntity<Object>> handleUnexpected(Exception ex, ServerWebExchange exchange) {
		if (ex.getCause() instanceof DataBufferLimitException limit) {
			return handleTooLarge(limit, exchange);
		}
		if (DisconnectedClientHelper.isClientDisconnectedException(ex) || ex instanceof ClosedChannelException) {
			// The client left before the answer (a reset stream request): nobody to tell.
			return Mono.empty();
		}
		logger.error("Unexpected error on " + exchange.getRequest().getMethod() + " " + exchange.getRequest().getPath(),
				ex);
		return problem(ProblemType.INTERNAL_ERROR, "An unexpected error happened; it has been logged", exchange);
	}

	@Override
	protected Mono<ResponseEntity<Object>> createResponseEntity(Object body, HttpHeaders headers, HttpStatusCode status,
			ServerWebExchange exchange) {
		if (body instanceof ProblemDetail problem
				&& (problem.getType() == null || "about:blank".equals(problem.getType().toString()))) {
			ProblemType type = ProblemType.forStatus(status.value());
			problem.setType(type.type());
			problem.setTitle(type.title());
		}
		if (body instanceof ProblemDetail problem && problem.getDetail() == null) {
			problem.setDetail(defaultDetail(status));
		}
		if (body instanceof ProblemDetail) {
			// Also to clients that accept only text/event-stream: EventSource, curl -H
			// 'Accept: ...'.
			HttpHeaders withType = new HttpHeaders();
			if (headers != null) {
				withType.putAll(headers);
			}
			withType.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
			headers = withType;
		}
		return super.createResponseEntity(body, headers, status, exchange);
	}

	private static String defaultDetail(HttpStatusCode status) {
		return switch (status.value()) {
			case 413 -> "The request body is larger than this endpoint accepts";
			case 415 -> "This endpoint does not accept that Content-Type; send application/json";
			default -> ProblemType.forStatus(status.value()).title();
		};
	}

}
