package dev.streamgate.subscribe.ws;

import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import io.micrometer.core.instrument.Counter;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtension;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.web.reactive.socket.CloseStatus;
import org.springframework.web.reactive.socket.WebSocketMessage;
import org.springframework.web.reactive.socket.WebSocketSession;
import reactor.core.Disposable;
import reactor.core.Disposables;
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
import dev.streamgate.core.web.TokenNotice;
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
 * Before its token expires the connection is sent a {@code token-expiring} message; a
 * {@code refresh} message with a fresh token of the same subject replaces it on the open
 * connection (answered {@code token-refreshed}), and each subscription the fresh token no
 * longer grants ends with a {@code forbidden} problem.
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

	/** The payload of a message sent as its Netty frame. */
	private static final byte[] EMPTY = new byte[0];

	private final WebSocketSession session;

	/** Replaced by a refresh, on the event loop. */
	private Principal principal;

	/** The token's notice and expiry timers, replaced with the token. */
	private final Disposable.Swap tokenTimers = Disposables.swap();

	/**
	 * The connection's event loop, where its messages are read: subscriptions are fed on
	 * it.
	 */
	private Executor eventLoop = Runnable::run;

	private final TopicSockets sockets;

	private final Map<String, Subscribed> subscribed = new HashMap<>();

	private final Sinks.Many<Flux<WebSocketMessage>> streams = Sinks.many().unicast().onBackpressureBuffer();

	private final Sinks.Many<WebSocketMessage> replies = Sinks.many().unicast().onBackpressureBuffer();

	/** What the connection holds, all its topics together. */
	private final ClientBuffer held;

	/** The status to close with, once the server closes the connection. */
	private final Sinks.One<CloseStatus> closing = Sinks.one();

	/** The bytes of the messages sent, for the access log. */
	private long sent;

	/** Whether the connection negotiated permessage-deflate. */
	private final boolean deflate;

	TopicSocket(WebSocketSession session, Principal principal, TopicSockets sockets) {
		this.session = session;
		this.principal = principal;
		this.sockets = sockets;
		this.held = sockets.buffers().open(sockets.properties().clientQueue(), sockets.unwritten(session));
		this.deflate = PerMessageDeflate.negotiated(sockets.channel(session));
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
		watchToken();
		// The close frame goes out once nothing else is being sent: closed while the
		// messages were still being written, the connection was dropped without one (the
		// client saw 1006, as after a network failure).
		Mono<Void> sending = this.session.send(out.takeUntilOther(this.closing.asMono()))
			.then(Mono.defer(() -> this.closing.asMono().flatMap(this.session::close)));
		this.sockets.opened(this);
		long startedAt = System.nanoTime();
		return Mono.when(input, sending).doFinally((signal) -> {
			this.tokenTimers.dispose();
			this.sockets.closed(this);
			this.held.close();
			this.sockets.accessLog()
				.ended(this.session.getHandshakeInfo().getRemoteAddress(), this.session.getHandshakeInfo().getUri(),
						101, this.sent, startedAt);
		});
	}

	/**
	 * Sends {@code token-expiring} before the token expires and closes the connection
	 * (4401) when it does.
	 */
	private void watchToken() {
		Instant expiresAt = this.sockets.access().expiresAt(this.principal);
		if (expiresAt == null) {
			this.tokenTimers.update(Disposables.disposed());
			return;
		}
		Instant now = Instant.now();
		Duration left = Duration.between(now, expiresAt);
		Disposable notice = Mono
			.delay(SubscribeAccess.untilNotice(expiresAt, this.sockets.access().expiringNotice(), now))
			.subscribe((tick) -> reply(WsEncoder.message(null, TokenNotice.EVENT, TokenNotice.json(expiresAt))));
		Disposable expiry = Mono.delay(left.isNegative() ? Duration.ZERO : left)
			.subscribe((tick) -> close(TOKEN_EXPIRED));
		this.tokenTimers.update(Disposables.composite(notice, expiry));
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
			JsonValue refresh = request.get("refresh");
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
			else if (refresh instanceof JsonObject parameters) {
				refresh(string(parameters, "token", true));
			}
			else {
				throw invalid("Send {\"subscribe\": {\"topic\": \"...\", \"mode\": \"...\", \"lastEventId\": \"...\", "
						+ "\"types\": [\"...\"], \"filter\": \"...\", \"pointer\": \"/...\"}} "
						+ "or {\"unsubscribe\": {\"topic\": \"...\"}} or {\"refresh\": {\"token\": \"...\"}}");
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
		Subscribed subscription = new Subscribed(topic, Sinks.empty());
		this.subscribed.put(topicId, subscription);
		this.streams
			.tryEmitNext(follow(topic, subscriptionMode, selection, resume).takeUntilOther(subscription.stop().asMono())
				// Back on the event loop, where the map is kept.
				.doFinally((signal) -> this.eventLoop.execute(() -> this.subscribed.remove(topicId, subscription))));
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
					.onErrorResume((ex) -> Mono.just(text(problem(topic.id(), streamgate(ex)), null))),
				sockets.followers()::release);
	}

	private WebSocketMessage message(Followed followed, Counter delivered) {
		if (followed.publishedAt() > 0) {
			delivered.increment();
			this.sockets.metrics().written(followed.publishedAt());
		}
		WsMessage message = followed.encoded(WsEncoder.INSTANCE);
		return text(message.text(), message);
	}

	/**
	 * A text message to send, its bytes counted in the connection's buffer. On a
	 * connection that negotiated permessage-deflate every message goes out compressed by
	 * the gateway, in a frame whose RSV1 bit is set, which Netty's own compressor leaves
	 * as it is: an event's message compressed once for every connection ({@code shared}),
	 * a message of this connection's own compressed for it alone.
	 * @param text the message
	 * @param shared the event's message, or {@code null} for one of this connection's own
	 * @return the message
	 */
	private WebSocketMessage text(byte[] text, WsMessage shared) {
		int level = this.sockets.properties().compressionLevel();
		byte[] bytes = !this.deflate ? text
				: (shared != null) ? shared.deflated(level) : WsMessage.deflate(text, level);
		this.sent += bytes.length;
		if (!(this.session.bufferFactory() instanceof NettyDataBufferFactory netty)) {
			return new WebSocketMessage(WebSocketMessage.Type.TEXT, this.session.bufferFactory().wrap(bytes));
		}
		ByteBuf content = this.held.counted(bytes);
		if (!this.deflate) {
			return new WebSocketMessage(WebSocketMessage.Type.TEXT, netty.wrap(content));
		}
		return new WebSocketMessage(WebSocketMessage.Type.TEXT, netty.wrap(EMPTY),
				new TextWebSocketFrame(true, WebSocketExtension.RSV1, content));
	}

	private void unsubscribe(String topicId) {
		Subscribed subscription = this.subscribed.remove(topicId);
		if (subscription == null) {
			throw new StreamgateException(ProblemType.BAD_REQUEST, "Not subscribed to '" + topicId + "'");
		}
		subscription.stop().tryEmitEmpty();
	}

	/** Verifies a fresh token, then takes it on the event loop. */
	private void refresh(String token) {
		Executor loop = this.eventLoop;
		this.sockets.access()
			.authenticate(token)
			.map(Optional::of)
			.defaultIfEmpty(Optional.empty())
			.subscribe((fresh) -> loop.execute(() -> refreshed(fresh.orElse(null))),
					(ex) -> reply(problem(null, (ex instanceof StreamgateException known) ? known
							: new StreamgateException(ProblemType.UNAUTHORIZED, "The token was refused", ex))));
	}

	/**
	 * Replaces the connection's token, ending the subscriptions it no longer grants.
	 * @param fresh the new token's principal, or {@code null} when nothing is checked
	 */
	private void refreshed(Principal fresh) {
		if (fresh != null) {
			if (this.principal != null && !Objects.equals(this.principal.getName(), fresh.getName())) {
				reply(problem(null,
						new StreamgateException(ProblemType.FORBIDDEN,
								"The token is for '" + fresh.getName() + "', this connection's for '"
										+ this.principal.getName() + "': open a new connection for it")));
				return;
			}
			this.principal = fresh;
			for (Iterator<Map.Entry<String, Subscribed>> it = this.subscribed.entrySet().iterator(); it.hasNext();) {
				Map.Entry<String, Subscribed> entry = it.next();
				if (this.sockets.access().check(fresh, entry.getValue().topic()) != SubscribeAccess.Verdict.ALLOWED) {
					it.remove();
					entry.getValue().stop().tryEmitEmpty();
					reply(problem(entry.getKey(), new StreamgateException(ProblemType.FORBIDDEN,
							"The refreshed token does not grant '" + entry.getKey() + "': its subscription ended")));
				}
			}
			watchToken();
		}
		Instant expiresAt = this.sockets.access().expiresAt(this.principal);
		reply(WsEncoder.message(null, TokenNotice.REFRESHED,
				("{\"expiresAt\":" + ((expiresAt != null) ? "\"" + expiresAt + "\"" : "null") + "}")
					.getBytes(StandardCharsets.UTF_8)));
	}

	/** Sends a message of the connection's own: from the event loop or a timer alike. */
	private void reply(byte[] message) {
		this.replies.emitNext(text(message, null), Sinks.EmitFailureHandler.busyLooping(Duration.ofSeconds(1)));
	}

	/** One topic's subscription: what it follows, and how to end it. */
	private record Subscribed(Topic topic, Sinks.Empty<Void> stop) {
	}

	private static StreamgateException streamgate(Throwable ex) {
		if (ex instanceof StreamgateException known) {
			return known;
		}
		return new StreamgateException(ProblemType.SERVICE_UNAVAILABLE,
				"The events of this topic cannot be read now; subscribe again shortly with your last id", ex);
	}

	private static byte[] problem(String topicId, StreamgateException ex) {
		return WsEncoder.message(topicId, EventType.PROBLEM.value(),
				ProblemJson.bytes(ex.problemType(), ex.getBody().getDetail(), null));
	}

}
