package dev.streamgate.core.web;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.regex.Pattern;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The access-log lines of streams and WebSockets, written when they end (with how long
 * they lasted and the bytes sent), in the format and to the logger of the other requests'
 * lines ({@code reactor.netty.http.server.AccessLog}). The server's own access log writes
 * a line when a response ends, which a stream that the client closes never does. Tokens
 * never appear: see {@link #mask}.
 */
public final class StreamAccessLog {

	/** Writes nothing: the access log is off. */
	public static final StreamAccessLog OFF = new StreamAccessLog(false);

	private static final Log logger = LogFactory.getLog("reactor.netty.http.server.AccessLog");

	private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.US);

	private static final Pattern CREDENTIAL_PARAMETER = Pattern
		.compile("(?i)([?&;][^=&;#/]*(token|key|secret|passw|auth|sig|jwt|credential|session)[^=&;#/]*=)[^&;#]*");

	private static final Pattern JWT = Pattern.compile("eyJ[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*");

	private final boolean enabled;

	/**
	 * An access log.
	 * @param enabled whether it writes
	 */
	public StreamAccessLog(boolean enabled) {
		this.enabled = enabled;
	}

	/**
	 * Whether a request is a stream or a WebSocket, whose line this log writes when it
	 * ends rather than the server's access log.
	 * @param path the request's path
	 * @param status the answer's status
	 * @return true for an SSE stream that opened (200) or a WebSocket upgrade (101)
	 */
	public static boolean isStream(String path, int status) {
		return status == 200 && (path.equals("/api/v1/stream") || path.startsWith("/api/v1/stream/"))
				|| status == 101 && path.equals("/api/v1/ws");
	}

	/**
	 * Writes the line of a stream that ended.
	 * @param remote the client's address, or {@code null}
	 * @param uri the request's URI
	 * @param status the answer's status
	 * @param bytes the bytes of the events sent
	 * @param startedAt when the stream started ({@link System#nanoTime()})
	 */
	public void ended(InetSocketAddress remote, URI uri, int status, long bytes, long startedAt) {
		if (!this.enabled || !logger.isInfoEnabled()) {
			return;
		}
		String target = uri.getRawPath() + ((uri.getRawQuery() != null) ? "?" + uri.getRawQuery() : "");
		logger.info(String.format(Locale.ROOT, "%s - [%s] \"GET %s HTTP/1.1\" %d %d %d ms",
				(remote != null) ? remote.getHostString() : "-", TIME.format(ZonedDateTime.now()), mask(target), status,
				bytes, (System.nanoTime() - startedAt) / 1_000_000));
	}

	/**
	 * A URI with the values of credential-named query and matrix parameters
	 * ({@code access_token}, {@code token}, {@code api_key}, {@code secret}...) and
	 * anything shaped like a JWT masked.
	 * @param uri the URI
	 * @return the URI fit for a log
	 */
	public static String mask(String uri) {
		return JWT.matcher(CREDENTIAL_PARAMETER.matcher(uri).replaceAll("$1***")).replaceAll("***");
	}

}
