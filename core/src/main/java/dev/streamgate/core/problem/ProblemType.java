package dev.streamgate.core.problem;

import java.net.URI;

import org.springframework.http.HttpStatus;

/**
 * The stable problem types of the HTTP contract, each with its RFC 9457 {@code type} URI.
 */
public enum ProblemType {

	BAD_REQUEST(HttpStatus.BAD_REQUEST, "bad-request", "Bad request"),

	MALFORMED_JSON(HttpStatus.BAD_REQUEST, "malformed-json", "Malformed JSON"),

	MISSING_BODY(HttpStatus.BAD_REQUEST, "missing-body", "Missing request body"),

	INVALID_TOPIC(HttpStatus.BAD_REQUEST, "invalid-topic", "Invalid topic"),

	INVALID_TOPIC_ID(HttpStatus.BAD_REQUEST, "invalid-topic-id", "Invalid topic id"),

	INVALID_PARAMETER(HttpStatus.BAD_REQUEST, "invalid-parameter", "Invalid parameter"),

	INVALID_PUBLICATION(HttpStatus.BAD_REQUEST, "invalid-publication", "Invalid publication"),

	INVALID_CURSOR(HttpStatus.BAD_REQUEST, "invalid-cursor", "Invalid cursor"),

	INVALID_WEBHOOK(HttpStatus.BAD_REQUEST, "invalid-webhook", "Invalid webhook"),

	INVALID_FILTER(HttpStatus.BAD_REQUEST, "invalid-filter", "Invalid filter"),

	INVALID_CLOUDEVENT(HttpStatus.BAD_REQUEST, "invalid-cloudevent", "Invalid CloudEvent"),

	PUBLISHER_MISMATCH(HttpStatus.CONFLICT, "publisher-mismatch", "Topic not published over HTTP POST"),

	IDEMPOTENCY_KEY_REUSED(HttpStatus.UNPROCESSABLE_CONTENT, "idempotency-key-reused",
			"Idempotency key reused with another request"),

	/** The first request with this Idempotency-Key is still being published. */
	IDEMPOTENCY_KEY_IN_USE(HttpStatus.CONFLICT, "idempotency-key-in-use", "Idempotency key in use"),

	MODE_NOT_ALLOWED(HttpStatus.NOT_ACCEPTABLE, "mode-not-allowed", "Subscription mode not allowed"),

	UNAUTHORIZED(HttpStatus.UNAUTHORIZED, "unauthorized", "Unauthorized"),

	FORBIDDEN(HttpStatus.FORBIDDEN, "forbidden", "Forbidden"),

	NOT_FOUND(HttpStatus.NOT_FOUND, "not-found", "Not found"),

	TOPIC_NOT_FOUND(HttpStatus.NOT_FOUND, "topic-not-found", "Topic not found"),

	WEBHOOK_NOT_FOUND(HttpStatus.NOT_FOUND, "webhook-not-found", "Webhook not found"),

	METHOD_NOT_ALLOWED(HttpStatus.METHOD_NOT_ALLOWED, "method-not-allowed", "Method not allowed"),

	NOT_ACCEPTABLE(HttpStatus.NOT_ACCEPTABLE, "not-acceptable", "Not acceptable"),

	TOPIC_EXISTS(HttpStatus.CONFLICT, "topic-exists", "Topic already exists"),

	PAYLOAD_TYPE_IMMUTABLE(HttpStatus.CONFLICT, "payload-type-immutable", "Payload type cannot change"),

	CONFLICT(HttpStatus.CONFLICT, "conflict", "Conflict"),

	PRECONDITION_FAILED(HttpStatus.PRECONDITION_FAILED, "precondition-failed", "Precondition failed"),

	PAYLOAD_TOO_LARGE(HttpStatus.CONTENT_TOO_LARGE, "payload-too-large", "Payload too large"),

	UNSUPPORTED_MEDIA_TYPE(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type", "Unsupported media type"),

	/**
	 * The request body did not arrive in time (streamgate.http.read-timeout /
	 * request-timeout).
	 */
	REQUEST_TIMEOUT(HttpStatus.REQUEST_TIMEOUT, "request-timeout", "Request timeout"),

	TOO_MANY_REQUESTS(HttpStatus.TOO_MANY_REQUESTS, "too-many-requests", "Too many requests"),

	INTERNAL_ERROR(HttpStatus.INTERNAL_SERVER_ERROR, "internal-error", "Internal error"),

	KAFKA_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE, "kafka-unavailable", "Kafka unavailable"),

	NOT_READY(HttpStatus.SERVICE_UNAVAILABLE, "not-ready", "Not ready"),

	/**
	 * The node holds as many publications as it may (streamgate.ingest.max-in-flight):
	 * nothing was published, retry after the {@code Retry-After} delay.
	 */
	OVERLOADED(HttpStatus.SERVICE_UNAVAILABLE, "overloaded", "Overloaded"),

	SERVICE_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE, "service-unavailable", "Service unavailable"),

	// The types below come in problem events of an open stream (its status is the one a
	// request would have had), never as a response status.

	/** The stream's topic was deleted; the stream ends. */
	TOPIC_DELETED(HttpStatus.GONE, "topic-deleted", "Topic deleted"),

	/** The resume cursor is no position of this topic; the stream goes on live. */
	POSITION_UNKNOWN(HttpStatus.BAD_REQUEST, "position-unknown", "Position unknown"),

	/** Events after the resume cursor are no longer retained; the stream goes on live. */
	POSITION_EXPIRED(HttpStatus.GONE, "position-expired", "Position expired"),

	/** The stream's token expired; the client reconnects with a fresh one. */
	TOKEN_EXPIRED(HttpStatus.UNAUTHORIZED, "token-expired", "Token expired"),

	/**
	 * The node serving the stream is shutting down (a rolling restart, a scale-in): the
	 * client reconnects at once with its last event id, to another node.
	 */
	SHUTTING_DOWN(HttpStatus.SERVICE_UNAVAILABLE, "shutting-down", "Shutting down");

	/** Prefix of every problem type URI. */
	public static final String BASE_URI = "https://streamgate.dev/problems/";

	private final HttpStatus status;

	private final URI type;

	private final String title;

	ProblemType(HttpStatus status, String slug, String title) {
		this.status = status;
		this.type = URI.create(BASE_URI + slug);
		this.title = title;
	}

	public HttpStatus status() {
		return this.status;
	}

	public URI type() {
		return this.type;
	}

	public String title() {
		return this.title;
	}

	/**
	 * The generic type for a status that no specific problem type describes.
	 * @param status an HTTP status code
	 * @return the matching generic problem type
	 */
	public static ProblemType forStatus(int status) {
		return switch (status) {
			case 401 -> UNAUTHORIZED;
			case 403 -> FORBIDDEN;
			case 404 -> NOT_FOUND;
			case 405 -> METHOD_NOT_ALLOWED;
			case 406 -> NOT_ACCEPTABLE;
			case 409 -> CONFLICT;
			case 412 -> PRECONDITION_FAILED;
			case 413 -> PAYLOAD_TOO_LARGE;
			case 415 -> UNSUPPORTED_MEDIA_TYPE;
			case 429 -> TOO_MANY_REQUESTS;
			case 503 -> SERVICE_UNAVAILABLE;
			default -> (status >= 500) ? INTERNAL_ERROR : BAD_REQUEST;
		};
	}

}
