package dev.streamgate.core.web;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * The {@code token-expiring} notice that an open connection (SSE stream, WebSocket) gets
 * before its token expires: the client fetches a fresh token and sends it on the
 * WebSocket ({@code {"refresh": {"token": "..."}}}) or reconnects the stream with it and
 * its last event id, with nothing lost and nothing repeated.
 */
public final class TokenNotice {

	/** The SSE event name, and the WebSocket message type. */
	public static final String EVENT = "token-expiring";

	/** The WebSocket message type that acknowledges a refreshed token. */
	public static final String REFRESHED = "token-refreshed";

	private TokenNotice() {
	}

	/**
	 * The notice's data.
	 * @param expiresAt when the token expires
	 * @return the UTF-8 JSON
	 */
	public static byte[] json(Instant expiresAt) {
		return ("{\"expiresAt\":\"" + expiresAt + "\"}").getBytes(StandardCharsets.UTF_8);
	}

}
