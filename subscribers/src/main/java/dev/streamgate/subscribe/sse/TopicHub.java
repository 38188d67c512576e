package dev.streamgate.subscribe.sse;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.CursorFormat;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventLog;
import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.event.EventTail;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.MemoryBudget;
import dev.streamgate.core.event.RecentEvents;
import dev.streamgate.core.event.SnapshotDocument;
import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.problem.ProblemJson;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.topic.PayloadType;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;

/**
 * The streams of one topic on this node: it follows the topic through the node's one
 * event tail, encodes each event once, and offers the same frame to every connection.
 * <p>
 * All state (the position, the recent events, the current document of a snapshot topic,
 * the clients) changes under this object's lock, taken by the tail thread for each event
 * and by each joining client, so that a client joins exactly between two events: it gets
 * what came before from a replay and what comes after live, nothing twice and nothing
 * missed.
 */
final class TopicHub implements EventTail.Listener {

	private static final Log logger = LogFactory.getLog(TopicHub.class);

	private static final java.time.Duration READY_TIMEOUT = java.time.Duration.ofSeconds(20);

	private final Topic topic;

	private final CursorFormat cursors;

	private final EventLog log;

	private final EventPublisher documents;

	private final SseProperties properties;

	private final Consumer<SseClient> onSlowClient;

	private final List<SseClient> clients = new CopyOnWriteArrayList<>();

	private final MemoryBudget budget;

	private RecentEvents<Recent> recent;

	private final List<Event> early = new ArrayList<>();

	private final Sinks.One<Boolean> ready = Sinks.one();

	private Cursor position;

	private SnapshotDocument document;

	private Frame snapshotFrame;

	private AutoCloseable following;

	private EventTail tail;

	private boolean ended;

	private volatile Instant idleSince = Instant.now();

	private volatile boolean failed;

	TopicHub(Topic topic, EventLog log, EventPublisher documents, SseProperties properties, MemoryBudget budget,
			Consumer<SseClient> onSlowClient) {
		this.topic = topic;
		this.cursors = CursorFormat.of(topic);
		this.log = log;
		this.documents = documents;
		this.properties = properties;
		this.onSlowClient = onSlowClient;
		this.budget = budget;
	}

	Topic topic() {
		return this.topic;
	}

	/**
	 * Whether the hub could not start; a new one is made for the next subscriber.
	 * @return true after a failed start
	 */
	boolean failed() {
		return this.failed;
	}

	int clientCount() {
		return this.clients.size();
	}

	/**
	 * Since when the hub has had no client.
	 * @return the time, or {@code null} while it has clients
	 */
	Instant idleSince() {
		return this.idleSince;
	}

	void start(EventTail tail) {
		this.tail = tail;
		this.following = tail.follow(this.topic, this);
	}

	@Override
	public synchronized void onStart(Cursor start) {
		this.position = start;
		this.recent = new RecentEvents<>(this.properties.recentEvents(), this.properties.recentBytes().toBytes(),
				this.budget, start);
		if (this.topic.payloadType() == PayloadType.EVENT) {
			this.ready.tryEmitValue(true);
			return;
		}
		this.documents.load(this.topic, start).subscribe(this::documentLoaded, (ex) -> {
			logger.error("Cannot rebuild the document of " + this.topic.id(), ex);
			this.failed = true;
			this.ready
				.tryEmitError(new StreamgateException(ProblemType.SERVICE_UNAVAILABLE,
						"The current document of '" + this.topic.id()
								+ "' cannot be read from Kafka now; retry shortly",
						ex)
					.withRetryAfter(java.time.Duration.ofSeconds(2)));
		});
	}

	private synchronized void documentLoaded(SnapshotDocument loaded) {
		this.document = loaded;
		this.early.forEach(this::dispatch);
		this.early.clear();
		this.ready.tryEmitValue(true);
	}

	@Override
	public synchronized void onEvent(Event event) {
		if (this.ended) {
			// The tail may still deliver until it has heard of the stop: keep nothing.
			return;
		}
		if (this.topic.payloadType() == PayloadType.SNAPSHOT && this.document == null) {
			this.early.add(event);
			return;
		}
		dispatch(event);
	}

	private void dispatch(Event event) {
		this.position = this.position.after(event.partition(), event.offset());
		String id = this.cursors.format(this.position);
		long publishedAt = event.publishedAt().toEpochMilli();
		Frame frame = Frame.of(id, event.type(), event.data(), publishedAt);
		Frame snapshotOnly = frame;
		if (this.topic.payloadType() == PayloadType.SNAPSHOT) {
			this.document = this.documents.apply(this.topic, this.document, event);
			this.snapshotFrame = null;
			if (event.type() != EventType.PROBLEM && hasSnapshotOnlyClients()) {
				snapshotOnly = Frame.of(id, EventType.SNAPSHOT, JsonPatches.write(this.document.document()),
						publishedAt);
			}
		}
		this.recent.add(new Recent(event, frame, this.position), event.data().length + frame.bytes().length,
				this.position);
		Cursor after = this.position;
		Frame forSnapshotOnly = snapshotOnly;
		fanOut((client) -> {
			Frame shared = (client.mode() == SubscriptionMode.SNAPSHOT_ONLY) ? forSnapshotOnly : frame;
			Frame adapted = client.adapt(event, shared, after, (clientCursor) -> Frame
				.of(this.cursors.format(clientCursor), event.type(), event.data(), publishedAt));
			if (adapted != null && !client.offer(adapted)) {
				slow(client);
			}
		});
	}

	/**
	 * Runs an action for every client on the client's own event loop: one task per event
	 * loop rather than one cross-thread write per connection, and each client's queue is
	 * only ever fed from its event loop.
	 */
	private void fanOut(Consumer<SseClient> action) {
		fanOut(this.clients, action);
	}

	private static void fanOut(List<SseClient> clients, Consumer<SseClient> action) {
		Map<Executor, List<SseClient>> byLoop = new HashMap<>();
		for (SseClient client : clients) {
			byLoop.computeIfAbsent(client.executor(), (loop) -> new ArrayList<>()).add(client);
		}
		byLoop.forEach((loop, group) -> loop.execute(() -> group.forEach(action)));
	}

	private boolean hasSnapshotOnlyClients() {
		return this.clients.stream().anyMatch((client) -> client.mode() == SubscriptionMode.SNAPSHOT_ONLY);
	}

	private void slow(SseClient client) {
		forget(client);
		this.onSlowClient.accept(client);
	}

	private void forget(SseClient client) {
		if (this.clients.remove(client) && this.clients.isEmpty()) {
			this.idleSince = Instant.now();
		}
	}

	/**
	 * Opens a stream.
	 * @param mode the subscription mode
	 * @param resume where the client resumes
	 * @param executor the event loop of the client's connection
	 * @return the frames, replay first, then live
	 */
	Flux<Frame> subscribe(SubscriptionMode mode, Resume resume, Executor executor) {
		Cursor cursor = resume.cursor();
		boolean earliest = resume.earliest();
		Mono<Boolean> ready = this.ready.asMono().timeout(READY_TIMEOUT, Mono.defer(() -> {
			logger.warn("Cannot follow " + this.topic.id() + " within " + READY_TIMEOUT.toSeconds()
					+ " s; the event tail: " + ((this.tail != null) ? this.tail.describe() : "none"));
			return Mono.empty();
		})
			.then(Mono.error(() -> new StreamgateException(ProblemType.SERVICE_UNAVAILABLE,
					"The events of '" + this.topic.id()
							+ "' cannot be followed now (is Kafka reachable?); retry shortly")
				.withRetryAfter(java.time.Duration.ofSeconds(5)))));
		// A client joins once the retry line is written (deferred: a stream cancelled
		// before then must not leave a registered client behind).
		Flux<Frame> retry = Flux.just(Frame.retry(this.properties.retry().toMillis()));
		if (earliest && this.topic.payloadType() == PayloadType.EVENT) {
			return ready.then(this.log.start(this.topic))
				.flatMapMany((start) -> Flux.concat(retry, Flux.defer(() -> join(mode, start, executor))));
		}
		if (resume.unknown()) {
			return ready.thenMany(Flux.concat(retry, Flux.defer(() -> joinUnknown(mode, executor))));
		}
		if (earliest || cursor == null) {
			return ready.thenMany(Flux.concat(retry, Flux.defer(() -> join(mode, null, executor))));
		}
		// A cursor past the end of the log (a topic created again, a made-up id) is no
		// position.
		return ready.then(this.log.end(this.topic))
			.flatMapMany((end) -> Flux.concat(retry, Flux
				.defer(() -> end.reaches(cursor) ? join(mode, cursor, executor) : joinUnknown(mode, executor))));
	}

	private synchronized Flux<Frame> join(SubscriptionMode mode, Cursor cursor, Executor executor) {
		if (this.ended) {
			return Flux.empty();
		}
		if (cursor == null) {
			SseClient client = add(mode, null, executor);
			Frame snapshot = (mode == SubscriptionMode.EVENT) ? null : currentSnapshot();
			return client.stream((snapshot != null) ? Flux.just(snapshot) : Flux.empty())
				.doFinally((s) -> remove(client));
		}
		if (mode == SubscriptionMode.SNAPSHOT_ONLY) {
			// Each snapshot supersedes the ones before: a resuming client needs only the
			// newest.
			SseClient client = add(mode, cursor, executor);
			Frame snapshot = cursor.reaches(this.position) ? null : currentSnapshot();
			return client.stream((snapshot != null) ? Flux.just(snapshot) : Flux.empty())
				.doFinally((s) -> remove(client));
		}
		if (cursor.reaches(this.recent.start())) {
			SseClient client = new SseClient(mode, this.properties.clientQueue(), cursor, executor);
			List<Frame> replay = new ArrayList<>();
			for (Recent recentEvent : this.recent.items()) {
				Event event = recentEvent.event();
				Frame adapted = client.adapt(event, recentEvent.frame(), recentEvent.after(),
						(clientCursor) -> Frame.of(this.cursors.format(clientCursor), event.type(), event.data(),
								event.publishedAt().toEpochMilli()));
				if (adapted != null) {
					replay.add(adapted);
				}
			}
			register(client);
			return client.stream(Flux.fromIterable(replay)).doFinally((s) -> remove(client));
		}
		return catchUp(mode, cursor, executor);
	}

	/**
	 * The cursor is older than the recent events: read the gap from Kafka, live events
	 * wait in the queue.
	 */
	private Flux<Frame> catchUp(SubscriptionMode mode, Cursor cursor, Executor executor) {
		Cursor until = this.position;
		Frame snapshotAtJoin = (mode == SubscriptionMode.EVENT) ? null : currentSnapshot();
		SseClient client = add(mode, cursor, executor);
		Flux<Frame> gap = this.log.start(this.topic).flatMapMany((start) -> {
			if (!cursor.reaches(start)) {
				return expired(snapshotAtJoin);
			}
			Cursor[] running = { cursor };
			return this.log.read(this.topic, cursor, until).map((event) -> {
				running[0] = running[0].after(event.partition(), event.offset());
				return Frame.of(this.cursors.format(running[0]), event.type(), event.data(),
						event.publishedAt().toEpochMilli());
			});
		});
		return client.stream(gap).doFinally((s) -> remove(client));
	}

	private synchronized Flux<Frame> joinUnknown(SubscriptionMode mode, Executor executor) {
		Frame snapshot = (mode == SubscriptionMode.EVENT) ? null : currentSnapshot();
		SseClient client = add(mode, null, executor);
		Frame first = (snapshot != null) ? snapshot : Frame.of(null, EventType.PROBLEM, ProblemJson.bytes(
				ProblemType.POSITION_UNKNOWN,
				"Your cursor is no position of this topic (a topic of the same id deleted since, or past the end of its events); the stream continues with new events",
				null), 0);
		return client.stream(Flux.just(first)).doFinally((s) -> remove(client));
	}

	private Flux<Frame> expired(Frame snapshotAtJoin) {
		if (snapshotAtJoin != null) {
			return Flux.just(snapshotAtJoin);
		}
		return Flux.just(Frame.of(null, EventType.PROBLEM,
				ProblemJson.bytes(ProblemType.POSITION_EXPIRED,
						"Events after your cursor are no longer retained; the stream continues with new events", null),
				0));
	}

	private SseClient add(SubscriptionMode mode, Cursor skipUntil, Executor executor) {
		SseClient client = new SseClient(mode, this.properties.clientQueue(), skipUntil, executor);
		register(client);
		return client;
	}

	private void register(SseClient client) {
		this.clients.add(client);
		this.idleSince = null;
	}

	private void remove(SseClient client) {
		client.cutOff();
		forget(client);
	}

	private Frame currentSnapshot() {
		if (this.document == null || this.document.document() == null) {
			return null;
		}
		if (this.snapshotFrame == null) {
			this.snapshotFrame = Frame.of(this.cursors.format(this.position), EventType.SNAPSHOT,
					JsonPatches.write(this.document.document()), 0);
		}
		return this.snapshotFrame;
	}

	/** Sends a heartbeat comment to every client. */
	synchronized void heartbeat() {
		fanOut((client) -> {
			if (!client.offer(Frame.HEARTBEAT)) {
				slow(client);
			}
		});
	}

	/**
	 * Ends every stream of this topic, after a last frame when there is one.
	 * @param last a frame to send before the end, or {@code null}
	 */
	synchronized void end(Frame last) {
		this.ended = true;
		if (this.recent != null) {
			this.recent.clear();
		}
		List<SseClient> ending = new ArrayList<>(this.clients);
		this.clients.clear();
		fanOut(ending, (client) -> {
			if (last != null) {
				client.offer(last);
			}
			client.complete();
		});
	}

	/** Stops following the topic. */
	void close() {
		try {
			if (this.following != null) {
				this.following.close();
			}
		}
		catch (Exception ex) {
			logger.warn("Cannot stop following " + this.topic.id(), ex);
		}
	}

	Mono<Boolean> ready() {
		return this.ready.asMono();
	}

	private record Recent(Event event, Frame frame, Cursor after) {
	}

}
