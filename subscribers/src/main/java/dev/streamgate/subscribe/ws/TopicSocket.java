package dev.streamgate.subscribe.ws;

import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import io.micrometer.core.instrument.Counter;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.web.reactive.socket.CloseStatus;
import org.springframework.web.reactive.socket.WebSocketMessage;
import org.springframework.web.reactive.socket.WebSocketSession;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import dev.streamgate.core.event.EventType;
import dev.streamgate.core.filter.Selection;
import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.problem.ProblemJson;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.web.SubscribeAccess;
import dev.streamgate.subscribe.follow.ClientBuffer;
import dev.streamgate.subscribe.follow.Followed;
import dev.streamgate.subscribe.follow.Resume;
import dev.streamgate.subscribe.follow.SlowSubscriberException;
import dev.streamgate.subscribe.follow.SubscribeParameters;

/**
 * One WebSocket connection: the topics it subscribed to, each a subscription of the
 * topic's follower merged into the one outgoing stream. A refused subscribe is a
 * {@code problem} message and the connection stays usable; only a connection that does
 * not keep up (4008) or whose token expired (4401) is closed by the server.
 * <p>
 * Messages are read on the connection's event loop, one at a time, so the subscription
 * map needs no lock.
 */
final class TopicSocket {

	/** The connection did not read fast enough: its queue of one topic filled. */
	static final CloseStatus SLOW = new CloseStatus(4008, "too slow: reconnect and resume with your last ids");

	/** The node is shutting down: reconnect at once, to another node. */
	static final CloseStatus GOING_AWAY = CloseStatus.GOING_AWAY
		.withReason("shutting down: reconnect with your last ids");

	/** The token expired. */
	static final CloseStatus TOKEN_EXPIRED = new CloseStatus(4401,
			"token expired: reconnect with a fresh token and your last ids");

	private final WebSocketSession session;

	private final Principal principal;

	/**
	 * The connection's event loop, where its messages are read: subscriptions are fed on
	 * it.
	 */
	private Executor eventLoop = Runnable::run;

	private final TopicSockets sockets;

	private final Map<String, Sinks.Empty<Void>> subscribed = new HashMap<>();

	private final Sinks.Many<Flux<WebSocketMessage>> streams = Sinks.many().unicast().onBackpressureBuffer();

	private final Sinks.Many<WebSocketMessage> replies = Sinks.many().unicast().onBackpressureBuffer();

	/** What the connection holds, all its topics together. */
	private final ClientBuffer held;

	/** The status to close with, once the server closes the connection. */
	private final Sinks.One<CloseStatus> closing = Sinks.one();

	/** The bytes of the messages sent, for the access log. */
	private long sent;

	TopicSocket(WebSocketSession session, Principal principal, TopicSockets sockets) {
		this.session = session;
		this.principal = principal;
		this.sockets = sockets;
		this.held = sockets.buffers().open(sockets.properties().clientQueue(), sockets.unwritten(session));
	}

	Mono<Void> run() {
		Sinks.Empty<Void> inputDone = Sinks.empty();
		Mono<Void> input = this.session.receive()
			.doOnNext(this::onMessage)
			.doFinally((signal) -> inputDone.tryEmitEmpty())
			.then();
		Flux<WebSocketMessage> pings = Flux.interval(this.sockets.properties().ping())
			.map((tick) -> this.session.pingMessage((factory) -> factory.wrap(new byte[0])));
		Flux<WebSocketMessage> out = Flux
			.merge(this.replies.asFlux(), this.streams.asFlux().flatMap((stream) -> stream, Integer.MAX_VALUE), pings)
			.takeUntilOther(inputDone.asMono());
		Instant expiresAt = this.sockets.access().expiresAt(this.principal);
		if (expiresAt != null) {
			Duration left = Duration.between(Instant.now(), expiresAt);
			Mono.delay(left.isNegative() ? Duration.ZERO : left)
				.takeUntilOther(inputDone.asMono())
				.subscribe((tick) -> close(TOKEN_EXPIRED));
		}
		// The close frame goes out once nothing else is being sent: closed while the
		// messages were still being written, the connection was dropped without one (the
		// client saw 1006, as after a network failure).
		Mono<Void> sending = this.session.send(out.takeUntilOther(this.closing.asMono()))
			.then(Mono.defer(() -> this.closing.asMono().flatMap(this.session::close)));
		this.sockets.opened(this);
		long startedAt = System.nanoTime();
		return Mono.when(input, sending).doFinally((signal) -> {
			this.sockets.closed(this);
			this.held.close();
			this.sockets.accessLog()
				.ended(this.session.getHandshakeInfo().getRemoteAddress(), this.session.getHandshakeInfo().getUri(),
						101, this.sent, startedAt);
		});
	}

	/**
	 * Closes the connection with a status, once what is being sent is sent.
	 * @param status the close status
	 */
	void close(CloseStatus status) {
		this.closing.tryEmitValue(status);
	}

	private void onMessage(WebSocketMessage message) {
		if (message.getType() != WebSocketMessage.Type.TEXT) {
			return;
		}
		EventExecutor current = ThreadExecutorMap.currentExecutor();
		if (current != null) {
			this.eventLoop = current;
		}
		String text = message.getPayloadAsText(StandardCharsets.UTF_8);
		String topicId = null;
		try {
			JsonObject request = request(text);
			JsonValue subscribe = request.get("subscribe");
			JsonValue unsubscribe = request.get("unsubscribe");
			if (subscribe instanceof JsonObject parameters) {
				topicId = string(parameters, "topic", true);
				subscribe(topicId, string(parameters, "mode", false), string(parameters, "lastEventId", false),
						strings(parameters, "types"), string(parameters, "filter", false),
						string(parameters, "pointer", false));
			}
			else if (unsubscribe != null) {
				topicId = (unsubscribe instanceof JsonString name) ? name.getString()
						: (unsubscribe instanceof JsonObject parameters) ? string(parameters, "topic", true) : null;
				if (topicId == null) {
					throw invalid("unsubscribe names a topic: {\"unsubscribe\": {\"topic\": \"...\"}}");
				}
				unsubscribe(topicId);
			}
			else {
				throw invalid("Send {\"subscribe\": {\"topic\": \"...\", \"mode\": \"...\", \"lastEventId\": \"...\", "
						+ "\"types\": [\"...\"], \"filter\": \"...\", \"pointer\": \"/...\"}} "
						+ "or {\"unsubscribe\": {\"topic\": \"...\"}}");
			}
		}
		catch (StreamgateException ex) {
			reply(problem(topicId, ex));
		}
	}

	private static JsonObject request(String text) {
		JsonValue value;
		try {
			value = JsonPatches.read(text.getBytes(StandardCharsets.UTF_8));
		}
		catch (RuntimeException ex) {
			throw new StreamgateException(ProblemType.MALFORMED_JSON,
					"A message is one JSON object: " + ex.getMessage());
		}
		if (!(value instanceof JsonObject object)) {
			throw invalid("A message is one JSON object");
		}
		return object;
	}

	private static String string(JsonObject object, String name, boolean required) {
		JsonValue value = object.get(name);
		if (value == null || value == JsonValue.NULL) {
			if (required) {
				throw invalid("'" + name + "' is required");
			}
			return null;
		}
		if (!(value instanceof JsonString text)) {
			throw invalid("'" + name + "' is a string");
		}
		return text.getString();
	}

	private static List<String> strings(JsonObject object, String name) {
		JsonValue value = object.get(name);
		if (value == null || value == JsonValue.NULL) {
			return null;
		}
		if (!(value instanceof JsonArray array)
				|| !array.stream().allMatch((item) -> item.getValueType() == JsonValue.ValueType.STRING)) {
			throw invalid("'" + name + "' is an array of strings");
		}
		return array.getValuesAs(JsonString::getString);
	}

	private static StreamgateException invalid(String detail) {
		return new StreamgateException(ProblemType.BAD_REQUEST, detail);
	}

	private void subscribe(String topicId, String mode, String lastEventId, List<String> types, String filter,
			String pointer) {
		Topic topic = SubscribeParameters.topic(this.sockets.topics(), this.sockets.access(), this.principal, topicId);
		SubscriptionMode subscriptionMode = SubscribeParameters.mode(topic, mode);
		Selection selection = SubscribeParameters.selection(topic, types, filter, pointer, "/subscribe/");
		Resume resume = SubscribeParameters.resume(topic, lastEventId);
		if (this.subscribed.containsKey(topicId)) {
			throw invalid("Already subscribed to '" + topicId + "'; unsubscribe first to change mode or position");
		}
		if (this.subscribed.size() >= this.sockets.properties().maxTopics()) {
			throw new StreamgateException(ProblemType.TOO_MANY_REQUESTS, "A connection subscribes to at most "
					+ this.sockets.properties().maxTopics() + " topics (streamgate.ws.max-topics)");
		}
		Sinks.Empty<Void> stop = Sinks.empty();
		this.subscribed.put(topicId, stop);
		this.streams.tryEmitNext(follow(topic, subscriptionMode, selection, resume).takeUntilOther(stop.asMono())
			// Back on the event loop, where the map is kept.
			.doFinally((signal) -> this.eventLoop.execute(() -> this.subscribed.remove(topicId, stop))));
	}

	private Flux<WebSocketMessage> follow(Topic topic, SubscriptionMode mode, Selection selection, Resume resume) {
		TopicSockets sockets = this.sockets;
		Counter delivered = sockets.metrics().delivered(topic.id());
		return Flux.using(() -> sockets.followers().acquire(topic),
				(follower) -> follower.open(TopicSockets.CHANNEL, this.held, mode, selection, resume, this.eventLoop)
					.flatMapMany((events) -> events)
					.filter((followed) -> !followed.isHeartbeat())
					.map((followed) -> message(followed, delivered))
					.onErrorResume(SlowSubscriberException.class,
							(ex) -> this.session.close(SLOW).then(Mono.<WebSocketMessage>empty()))
					// Any other end of one topic's subscription is that topic's problem.
					.onErrorResume((ex) -> Mono.just(new WebSocketMessage(WebSocketMessage.Type.TEXT,
							this.session.bufferFactory().wrap(problem(topic.id(), streamgate(ex)))))),
				sockets.followers()::release);
	}

	private WebSocketMessage message(Followed followed, Counter delivered) {
		if (followed.publishedAt() > 0) {
			delivered.increment();
			this.sockets.metrics().written(followed.publishedAt());
		}
		byte[] bytes = followed.encoded(WsEncoder.INSTANCE);
		DataBuffer buffer = (this.session.bufferFactory() instanceof NettyDataBufferFactory netty)
				? netty.wrap(this.held.counted(bytes)) : this.session.bufferFactory().wrap(bytes);
		this.sent += bytes.length;
		return new WebSocketMessage(WebSocketMessage.Type.TEXT, buffer);
	}

	private void unsubscribe(String topicId) {
		Sinks.Empty<Void> stop = this.subscribed.remove(topicId);
		if (stop == null) {
			throw new StreamgateException(ProblemType.BAD_REQUEST, "Not subscribed to '" + topicId + "'");
		}
		stop.tryEmitEmpty();
	}

	private void reply(byte[] message) {
		this.replies
			.tryEmitNext(new WebSocketMessage(WebSocketMessage.Type.TEXT, this.session.bufferFactory().wrap(message)));
	}

	private static StreamgateException streamgate(Throwable ex) {
		if (ex instanceof StreamgateException known) {
			return known;
		}
		return new StreamgateException(ProblemType.SERVICE_UNAVAILABLE,
				"The events of this topic cannot be read now; subscribe again shortly with your last id", ex);
	}

	private static byte[] problem(String topicId, StreamgateException ex) {
		return WsEncoder.message(topicId, EventType.PROBLEM.value(), null, null,
				ProblemJson.bytes(ex.problemType(), ex.getBody().getDetail(), null));
	}

}
