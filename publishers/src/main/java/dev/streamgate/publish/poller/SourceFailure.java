package dev.streamgate.publish.poller;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Why a poll found no document: each kind becomes a {@code problem} event whose problem
 * type says what went wrong at the source.
 */
final class SourceFailure extends RuntimeException {

	private final Kind kind;

	private final Integer sourceStatus;

	private final int attempts;

	SourceFailure(Kind kind, String detail) {
		this(kind, detail, null, 1, null);
	}

	SourceFailure(Kind kind, String detail, Integer sourceStatus) {
		this(kind, detail, sourceStatus, 1, null);
	}

	SourceFailure(Kind kind, String detail, Throwable cause) {
		this(kind, detail, null, 1, cause);
	}

	private SourceFailure(Kind kind, String detail, Integer sourceStatus, int attempts, Throwable cause) {
		super(detail, cause, false, false);
		this.kind = kind;
		this.sourceStatus = sourceStatus;
		this.attempts = attempts;
	}

	Kind kind() {
		return this.kind;
	}

	Integer sourceStatus() {
		return this.sourceStatus;
	}

	int attempts() {
		return this.attempts;
	}

	SourceFailure afterAttempts(int attempts) {
		return new SourceFailure(this.kind, getMessage(), this.sourceStatus, attempts, getCause());
	}

	/**
	 * The problem JSON members of the problem event. The URL is given without its query,
	 * which may carry credentials.
	 */
	Map<String, Object> problem(String topicId, URI url) {
		Map<String, Object> problem = new LinkedHashMap<>();
		problem.put("type", "https://streamgate.dev/problems/" + this.kind.slug);
		problem.put("title", this.kind.title);
		problem.put("status", this.kind.status);
		problem.put("detail", getMessage());
		problem.put("topic", topicId);
		problem.put("source", url.getScheme() + "://" + url.getRawAuthority().replaceFirst("^.*@", "")
				+ ((url.getRawPath() != null) ? url.getRawPath() : ""));
		if (this.sourceStatus != null) {
			problem.put("sourceStatus", this.sourceStatus);
		}
		problem.put("attempts", this.attempts);
		return problem;
	}

	/**
	 * The kinds of failure, with the problem each becomes.
	 */
	enum Kind {

		STATUS("source-status", "The source answered with an error status", 502),

		TIMEOUT("source-timeout", "The source did not answer in time", 504),

		UNREACHABLE("source-unreachable", "The source could not be reached", 502),

		TLS("source-tls", "The TLS handshake with the source failed", 502),

		REDIRECTS("source-redirects", "The source redirected too often", 502),

		NOT_JSON("source-not-json", "The source's answer is not JSON", 502),

		TOO_LARGE("source-too-large", "The source's answer is too large", 502),

		REFUSED("source-refused", "The source's address is not allowed", 502),

		NO_PAYLOAD("source-payload-missing", "The payload pointer matches nothing in the answer", 502),

		NOT_A_DOCUMENT("source-not-a-document", "A snapshot topic needs a JSON object or array", 502),

		PAGINATION("source-pagination", "The source's pages could not be followed", 502),

		AUTH("source-auth", "No access token for the source", 502),

		SCHEMA("source-schema-mismatch", "The source's payload does not match the topic's schema", 502);

		private final String slug;

		private final String title;

		private final int status;

		Kind(String slug, String title, int status) {
			this.slug = slug;
			this.title = title;
			this.status = status;
		}

		String slug() {
			return this.slug;
		}

	}

}
