package dev.streamgate.support;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * Stream requests whose connection is reset (SO_LINGER 0) as soon as they are sent: the
 * client is gone while the gateway still checks the request's token.
 */
public final class AbortedRequests {

	private AbortedRequests() {
	}

	/**
	 * Sends stream requests and resets each connection at once.
	 * @param baseUrl the gateway
	 * @param path the stream's path
	 * @param token a bearer token
	 * @param count how many
	 * @throws IOException when the gateway cannot be reached
	 */
	public static void send(String baseUrl, String path, String token, int count) throws IOException {
		URI base = URI.create(baseUrl);
		byte[] request = ("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
				+ "Authorization: Bearer " + token + "\r\n\r\n")
			.getBytes(StandardCharsets.US_ASCII);
		for (int i = 0; i < count; i++) {
			try (Socket socket = new Socket(base.getHost(), base.getPort())) {
				OutputStream out = socket.getOutputStream();
				out.write(request);
				out.flush();
				socket.setSoLinger(true, 0);
			}
		}
	}

}
