package dev.streamgate.core.problem;

import java.time.Duration;
import java.util.List;

import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * An error a client caused or can act on, answered as {@code application/problem+json}.
 */
public class StreamgateException extends ErrorResponseException {

	private final ProblemType problemType;

	public StreamgateException(ProblemType type, String detail) {
		this(type, detail, null);
	}

	public StreamgateException(ProblemType type, String detail, Throwable cause) {
		super(type.status(), problem(type, detail), cause);
		this.problemType = type;
		if (type == ProblemType.UNAUTHORIZED) {
			// RFC 6750: a 401 says which scheme to authenticate with.
			getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"streamgate\"");
		}
	}

	public ProblemType problemType() {
		return this.problemType;
	}

	/**
	 * Adds the individual validation errors, each with a JSON pointer into the request.
	 * @param errors the errors
	 * @return this exception
	 */
	public StreamgateException withErrors(List<FieldError> errors) {
		getBody().setProperty("errors", errors);
		return this;
	}

	/**
	 * Adds a {@code Retry-After} header.
	 * @param delay when to retry
	 * @return this exception
	 */
	public StreamgateException withRetryAfter(Duration delay) {
		getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, delay.toSeconds())));
		return this;
	}

	private static ProblemDetail problem(ProblemType type, String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(type.status(), detail);
		problem.setType(type.type());
		problem.setTitle(type.title());
		return problem;
	}

	public static StreamgateException kafkaUnavailable(Throwable cause) {
		return new StreamgateException(ProblemType.KAFKA_UNAVAILABLE,
				"Kafka did not acknowledge in time; nothing was changed. Retry later.", cause)
			.withRetryAfter(Duration.ofSeconds(5));
	}

	/**
	 * One validation error: where in the request document, and what is wrong there.
	 *
	 * @param pointer an RFC 6901 JSON pointer into the request body
	 * @param detail what is wrong
	 */
	public record FieldError(String pointer, String detail) {
	}

}
