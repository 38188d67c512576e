package dev.streamgate.support;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * One HTTP/1.1 connection driven byte by byte, so that a test decides exactly when each
 * request goes out: several in one write (pipelined), or the next one the moment the
 * previous answer is read (keep-alive), which pooled clients only do by chance.
 */
public final class RawHttp implements Closeable {

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	/**
	 * Connects.
	 * @param port the gateway's port on localhost
	 * @param readTimeout how long one answer may take
	 * @throws IOException when the gateway cannot be reached
	 */
	public RawHttp(int port, Duration readTimeout) throws IOException {
		this.socket = new Socket("localhost", port);
		this.socket.setSoTimeout((int) readTimeout.toMillis());
		this.socket.setTcpNoDelay(true);
		this.in = this.socket.getInputStream();
		this.out = this.socket.getOutputStream();
	}

	/**
	 * A bodyless GET.
	 * @param path the path and query
	 * @return the request's bytes
	 */
	public static String get(String path) {
		return "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nAccept: */*\r\n\r\n";
	}

	/**
	 * A POST with a JSON body.
	 * @param path the path
	 * @param json the body
	 * @return the request's bytes
	 */
	public static String postJson(String path, String json) {
		byte[] body = json.getBytes(StandardCharsets.UTF_8);
		return "POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: "
				+ body.length + "\r\n\r\n" + json;
	}

	/**
	 * Writes requests in one write and flush.
	 * @param requests the requests, as {@link #get} and {@link #postJson} make them
	 * @throws IOException when the connection fails
	 */
	public void send(String... requests) throws IOException {
		this.out.write(String.join("", requests).getBytes(StandardCharsets.UTF_8));
		this.out.flush();
	}

	/**
	 * Reads one whole answer (Content-Length or chunked).
	 * @return its status code
	 * @throws IOException when the connection fails or the answer does not come in time
	 * ({@link java.net.SocketTimeoutException})
	 */
	public int readStatus() throws IOException {
		String head = readHead();
		int status = Integer.parseInt(head.substring(9, 12));
		String lower = head.toLowerCase(Locale.ROOT);
		int length = lower.indexOf("\r\ncontent-length:");
		if (length >= 0) {
			int end = lower.indexOf("\r\n", length + 2);
			skip(Integer.parseInt(lower.substring(length + 17, end).trim()));
		}
		else if (lower.contains("\r\ntransfer-encoding: chunked")) {
			skipChunks();
		}
		return status;
	}

	/**
	 * Reads an answer's status line and headers only (a stream's body never ends).
	 * @return them, in lower case
	 * @throws IOException when the connection fails or the answer does not come in time
	 */
	public String readHeadLowerCase() throws IOException {
		return readHead().toLowerCase(Locale.ROOT);
	}

	/**
	 * Reads until the gateway closes the connection.
	 * @throws IOException when it does not close it in time
	 * ({@link java.net.SocketTimeoutException})
	 */
	public void awaitClose() throws IOException {
		while (this.in.read() >= 0) {
			// what comes before the end does not matter here
		}
	}

	private String readHead() throws IOException {
		ByteArrayOutputStream head = new ByteArrayOutputStream();
		while (true) {
			int b = this.in.read();
			if (b < 0) {
				throw new IOException("The connection closed before an answer; read so far: " + head);
			}
			head.write(b);
			byte[] bytes = head.toByteArray();
			int n = bytes.length;
			if (n >= 4 && bytes[n - 4] == '\r' && bytes[n - 3] == '\n' && bytes[n - 2] == '\r'
					&& bytes[n - 1] == '\n') {
				return head.toString(StandardCharsets.ISO_8859_1);
			}
		}
	}

	private String readLine() throws IOException {
		StringBuilder line = new StringBuilder();
		int b;
		while ((b = this.in.read()) >= 0 && b != '\n') {
			if (b != '\r') {
				line.append((char) b);
			}
		}
		return line.toString();
	}

	private void skipChunks() throws IOException {
		while (true) {
			int size = Integer.parseInt(readLine().split(";")[0].trim(), 16);
			if (size == 0) {
				readLine();
				return;
			}
			skip(size);
			readLine();
		}
	}

	private void skip(int count) throws IOException {
		if (this.in.readNBytes(count).length < count) {
			throw new IOException("The connection closed inside an answer's body");
		}
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

}
