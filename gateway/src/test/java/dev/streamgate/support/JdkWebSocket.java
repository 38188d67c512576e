package dev.streamgate.support;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import jakarta.json.JsonObject;

import dev.streamgate.core.patch.JsonPatches;

/**
 * A WebSocket client of the JDK ({@code java.net.http}), as a subscriber writes it: text
 * messages in a queue, the close code the server sent.
 */
public final class JdkWebSocket implements AutoCloseable {

	private final BlockingQueue<JsonObject> messages = new LinkedBlockingQueue<>();

	private final CompletableFuture<Integer> closed = new CompletableFuture<>();

	private final WebSocket socket;

	private final boolean reads;

	private JdkWebSocket(URI uri, boolean reads) {
		this.reads = reads;
		this.socket = HttpClient.newHttpClient()
			.newWebSocketBuilder()
			.connectTimeout(Duration.ofSeconds(10))
			.buildAsync(uri, new Listener())
			.join();
	}

	/**
	 * Connects.
	 * @param uri the {@code ws://} address
	 * @return the connected client, reading all it receives
	 */
	public static JdkWebSocket connect(String uri) {
		return new JdkWebSocket(URI.create(uri), true);
	}

	/**
	 * Connects a client that reads its first message and nothing after.
	 * @param uri the {@code ws://} address
	 * @return the connected client
	 */
	public static JdkWebSocket connectStalled(String uri) {
		return new JdkWebSocket(URI.create(uri), false);
	}

	public void send(String text) {
		this.socket.sendText(text, true).join();
	}

	/**
	 * The next message.
	 * @param timeout how long to wait
	 * @return it, or {@code null} when none came in time
	 */
	public JsonObject next(Duration timeout) throws InterruptedException {
		return this.messages.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
	}

	/**
	 * The close code the server sent.
	 * @return completes with it
	 */
	public CompletableFuture<Integer> closed() {
		return this.closed;
	}

	@Override
	public void close() {
		this.socket.abort();
	}

	private final class Listener implements WebSocket.Listener {

		private final StringBuilder partial = new StringBuilder();

		@Override
		public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
			this.partial.append(data);
			if (last) {
				JdkWebSocket.this.messages
					.add((JsonObject) JsonPatches.read(this.partial.toString().getBytes(StandardCharsets.UTF_8)));
				this.partial.setLength(0);
			}
			if (JdkWebSocket.this.reads) {
				webSocket.request(1);
			}
			return null;
		}

		@Override
		public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
			JdkWebSocket.this.closed.complete(statusCode);
			return null;
		}

		@Override
		public void onError(WebSocket webSocket, Throwable error) {
			JdkWebSocket.this.closed.completeExceptionally(error);
		}

	}

}
