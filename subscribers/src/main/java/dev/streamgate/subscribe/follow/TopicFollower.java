package dev.streamgate.subscribe.follow;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.CursorFormat;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.MemoryBudget;
import dev.streamgate.core.event.RecentEvents;
import dev.streamgate.core.event.SnapshotDocument;
import dev.streamgate.core.event.SnapshotDocuments;
import dev.streamgate.core.filter.Selection;
import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.problem.ProblemJson;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.storage.EventLog;
import dev.streamgate.core.storage.EventTail;
import dev.streamgate.core.topic.PayloadType;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.trace.EventTracing;

/**
 * One topic followed on this node for all its subscribers, whatever their channel: it
 * follows the topic through the node's one event tail, keeps the newest events and, for a
 * snapshot topic, the current document, and hands each event to every subscription as the
 * same {@link Followed} instance, so that each channel encodes it once.
 * <p>
 * Two ways to read: pushed subscriptions (streams: {@link #open}) get a bounded queue fed
 * from their connection's event loop; pulling readers (webhook dispatchers:
 * {@link #next}) ask for the events after their cursor and wait when there are none.
 * <p>
 * All state (the position, the recent events, the document, the subscriptions) changes
 * under this object's lock, taken by the tail thread for each event and by each joining
 * subscriber, so that a subscriber joins exactly between two events: it gets what came
 * before from a replay and what comes after live, nothing twice and nothing missed.
 */
public final class TopicFollower implements EventTail.Listener {

	private static final Log logger = LogFactory.getLog(TopicFollower.class);

	/** Positions looked back at for the problem of a topic without a document. */
	private static final long PROBLEM_LOOK_BACK = 1024;

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);

	/**
	 * A waiting reader looks again after one to two of these even when no event woke it
	 * ({@link #recheck}).
	 */
	static final Duration RECHECK = Duration.ofSeconds(10);

	/**
	 * The data a pulling reader behind the recent events takes from Kafka at a time: it
	 * holds what it took until it has handled it, and events read from Kafka are its own
	 * copies. Bounded by count alone (200 by default), a webhook behind its topic's 50-KB
	 * events held up to 10 MB, and 500 of them about 450 MB; with events of 1 MB one
	 * webhook could hold 200 MB.
	 */
	static final int READ_BYTES = 1024 * 1024;

	private final Topic topic;

	private final CursorFormat cursors;

	private final EventLog log;

	private final SnapshotDocuments documents;

	private final FollowProperties properties;

	private final MemoryBudget budget;

	private final Consumer<String> onSlow;

	private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();

	/**
	 * Where the subscriptions wait for their heartbeat: the node's, shared by all topics.
	 */
	private final HeartbeatWheel heartbeats;

	/** The pull feed's readers waiting for the next event. */
	private final Waiters waiters = new Waiters();

	private final List<Event> early = new ArrayList<>();

	private final EventTracing tracing;

	/** The parts of the document that view subscribers asked for (snapshot topics). */
	private final DocumentViews views = new DocumentViews();

	private final Sinks.One<Boolean> ready = Sinks.one();

	private RecentEvents<Followed> recent;

	private Cursor position;

	private SnapshotDocument document;

	private Followed snapshot;

	/**
	 * A snapshot topic without a document yet: the newest problem (its publisher has
	 * never succeeded), which a joining snapshot subscriber gets instead of a snapshot.
	 */
	private Followed problemWithoutDocument;

	private AutoCloseable following;

	private EventTail tail;

	private boolean ended;

	private volatile boolean failed;

	private volatile Instant idleSince = Instant.now();

	/** Readers holding this follower; changed only by {@link TopicFollowers}. */
	int users;

	TopicFollower(Topic topic, EventLog log, SnapshotDocuments documents, FollowProperties properties,
			MemoryBudget budget, Consumer<String> onSlow) {
		this(topic, log, documents, properties, budget, onSlow, EventTracing.NONE, new HeartbeatWheel());
	}

	TopicFollower(Topic topic, EventLog log, SnapshotDocuments documents, FollowProperties properties,
			MemoryBudget budget, Consumer<String> onSlow, EventTracing tracing, HeartbeatWheel heartbeats) {
		this.tracing = tracing;
		this.heartbeats = heartbeats;
		this.topic = topic;
		this.cursors = CursorFormat.of(topic);
		this.log = log;
		this.documents = documents;
		this.properties = properties;
		this.budget = budget;
		this.onSlow = onSlow;
	}

	public Topic topic() {
		return this.topic;
	}

	/**
	 * Where the follower stands: a subscriber that joins live now receives the events
	 * after it.
	 * @return the cursor's text, or {@code null} before the follower started
	 */
	public synchronized String position() {
		return (this.position != null) ? this.cursors.format(this.position) : null;
	}

	/**
	 * Where the follower stands, as a cursor: a subscriber that joins after it receives
	 * every event the follower reads from now on.
	 * @return the cursor, or {@code null} before the follower started
	 */
	public synchronized Cursor cursor() {
		return this.position;
	}

	/**
	 * The newest of the events this follower keeps in memory that is of a kind, looked
	 * for from the newest back.
	 * @param which the kind: it may cache what it reads of an event with
	 * {@link Followed#encoded}, which the kept copies hold for the next search
	 * @return the event, or {@code null} when none of those kept is
	 */
	public synchronized Followed newest(Predicate<Followed> which) {
		if (this.recent != null) {
			for (Followed kept : this.recent.newestFirst()) {
				if (kept.event() != null && which.test(kept)) {
					return kept;
				}
			}
		}
		return null;
	}

	/**
	 * Whether the follower could not start; a new one is made for the next reader.
	 * @return true after a failed start
	 */
	boolean failed() {
		return this.failed;
	}

	/**
	 * Since when the follower has had no reader.
	 * @return the time, or {@code null} while it has some
	 */
	Instant idleSince() {
		return this.idleSince;
	}

	synchronized void used(int change) {
		this.users += change;
		this.idleSince = (this.users == 0) ? Instant.now() : null;
	}

	/**
	 * Open subscriptions of one channel.
	 * @param channel the channel, e.g. {@code sse}
	 * @return how many
	 */
	public int count(String channel) {
		int count = 0;
		for (Subscription subscription : this.subscriptions) {
			if (subscription.channel().equals(channel)) {
				count++;
			}
		}
		return count;
	}

	void start(EventTail eventTail) {
		this.tail = eventTail;
		this.following = eventTail.follow(this.topic, this);
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
		this.documents.load(this.topic, start)
			.flatMap((loaded) -> (loaded.document() != null) ? Mono.just(new Loaded(loaded, null))
					// No document: why not, if its publisher said so lately, before this
					// node followed the topic (a short look back: in shared storage the
					// positions are other topics' too).
					: this.log.newest(this.topic, (event) -> true, PROBLEM_LOOK_BACK)
						.filter((event) -> event.type() == EventType.PROBLEM)
						.map((problem) -> new Loaded(loaded, problem))
						.onErrorResume((ex) -> Mono.empty())
						.defaultIfEmpty(new Loaded(loaded, null)))
			.subscribe(this::documentLoaded, (ex) -> {
				logger.error("Cannot rebuild the document of " + this.topic.id(), ex);
				this.failed = true;
				this.ready.tryEmitError(new StreamgateException(ProblemType.SERVICE_UNAVAILABLE,
						"The current document of '" + this.topic.id()
								+ "' cannot be read from Kafka now; retry shortly",
						ex)
					.withRetryAfter(Duration.ofSeconds(2)));
			});
	}

	private synchronized void documentLoaded(Loaded loaded) {
		this.document = loaded.document();
		Event problem = loaded.problem();
		if (problem != null) {
			Cursor after = Cursor.beforeAll(this.topic.partitions()).after(problem.partition(), problem.offset());
			this.problemWithoutDocument = Followed.of(this.topic.id(), this.cursors.format(after), after, problem);
		}
		this.early.forEach(this::dispatch);
		this.early.clear();
		this.ready.tryEmitValue(true);
	}

	private boolean hasDocument() {
		return this.document != null && this.document.document() != null;
	}

	@Override
	public void onEvent(Event event) {
		List<MonoSink<Void>> woken;
		synchronized (this) {
			if (this.ended) {
				// The tail may still deliver until it has heard of the stop: keep
				// nothing.
				return;
			}
			if (this.topic.payloadType() == PayloadType.SNAPSHOT && this.document == null) {
				this.early.add(event);
				return;
			}
			dispatch(event);
			woken = this.waiters.takeAll();
		}
		woken.forEach(MonoSink::success);
	}

	/**
	 * How many readers wait for an event, of both generations.
	 * @return the count
	 */
	int waiters() {
		return this.waiters.size();
	}

	/**
	 * Wakes the readers that have waited through the previous recheck as well, woken by
	 * nothing: so each looks again between one and two intervals after it began to wait.
	 * The node calls this for all its followers once per {@link #RECHECK}, in place of a
	 * timer per waiting reader (one per webhook: 500 timers set a second at 5,000 idle
	 * webhooks).
	 */
	void recheck() {
		this.waiters.recheck().forEach(MonoSink::success);
	}

	private void dispatch(Event event) {
		if (!event.attributes().headers().containsKey(EventTracing.TRACEPARENT)) {
			// Published in no trace: no span on the tail thread, one for every topic.
			fanOutEvent(event);
			return;
		}
		// A span in the trace the event was published in: its fan-out on this node.
		EventTracing.Span span = this.tracing.span("fan-out " + this.topic.id(), event.attributes().headers());
		try {
			fanOutEvent(event);
		}
		finally {
			span.end(null);
		}
	}

	private void fanOutEvent(Event event) {
		this.position = this.position.after(event.partition(), event.offset());
		Followed followed = Followed.of(this.topic.id(), this.cursors.format(this.position), this.position, event);
		Followed snapshotOnly = followed;
		Map<String, DocumentViews.Change> viewed = Map.of();
		if (this.topic.payloadType() == PayloadType.SNAPSHOT) {
			this.document = this.documents.apply(this.topic, this.document, event);
			this.snapshot = null;
			this.problemWithoutDocument = (event.type() == EventType.PROBLEM && !hasDocument()) ? followed : null;
			if (event.type() != EventType.PROBLEM && has(SubscriptionMode.SNAPSHOT_ONLY)) {
				snapshotOnly = currentSnapshot();
			}
			viewed = this.views.changed(followed, hasDocument() ? this.document.document() : null);
		}
		// Kept without the encodings the fan-out below makes. It still counts its data
		// twice: a resume that reads it encodes it again, and that encoding stays.
		this.recent.add(followed.kept(), 2L * event.data().length, this.position);
		Followed forSnapshotOnly = (snapshotOnly != null) ? snapshotOnly : followed;
		Map<String, DocumentViews.Change> changes = viewed;
		Subscription.fanOut(this.subscriptions, (subscription) -> {
			Followed shared = (subscription.mode() == SubscriptionMode.SNAPSHOT_ONLY) ? forSnapshotOnly : followed;
			String view = subscription.view();
			if (view != null) {
				DocumentViews.Change change = changes.get(view);
				if (change == null) {
					// The part it shows did not change.
					return;
				}
				shared = (subscription.mode() == SubscriptionMode.SNAPSHOT_ONLY) ? change.snapshot() : change.patch();
			}
			Followed adapted = subscription.adapt(shared, this.cursors::format);
			if (adapted != null && !subscription.offer(adapted)) {
				slow(subscription);
			}
		});
	}

	/** Whether a subscriber of the whole document has this mode. */
	private boolean has(SubscriptionMode mode) {
		for (Subscription subscription : this.subscriptions) {
			if (subscription.mode() == mode && subscription.view() == null) {
				return true;
			}
		}
		return false;
	}

	private void slow(Subscription subscription) {
		unregister(subscription);
		this.onSlow.accept(subscription.channel());
	}

	/**
	 * Opens a subscription once the follower is ready and the resume position is known:
	 * errors (the topic cannot be followed now) come before anything is written.
	 * @param channel the channel, for counts
	 * @param buffer what the subscriber's connection holds, and may hold before it is cut
	 * off
	 * @param mode the subscription mode
	 * @param selection the events it asked for (types, filter)
	 * @param resume where the subscriber resumes
	 * @param executor the event loop of the subscriber's connection
	 * @return the subscription's events, replay first, then live; it joins when
	 * subscribed
	 */
	public Mono<Flux<Followed>> open(String channel, ClientBuffer buffer, SubscriptionMode mode, Selection selection,
			Resume resume, Executor executor) {
		return open(channel, buffer, mode, selection, null, resume, executor);
	}

	/**
	 * Opens a subscription whose channel takes only some of the events its selection
	 * selects.
	 * @param channel the channel, for counts
	 * @param buffer what the subscriber's connection holds
	 * @param mode the subscription mode
	 * @param selection the events it asked for (types, filter)
	 * @param accepts the events the channel takes, decided before they are queued (the
	 * Mercure hub's topic selectors); {@code null} for all
	 * @param resume where the subscriber resumes
	 * @param executor the event loop of the subscriber's connection
	 * @return the subscription's events, replay first, then live
	 */
	public Mono<Flux<Followed>> open(String channel, ClientBuffer buffer, SubscriptionMode mode, Selection selection,
			Predicate<Followed> accepts, Resume resume, Executor executor) {
		Cursor cursor = resume.cursor();
		Mono<Boolean> whenReady = this.ready.asMono().timeout(READY_TIMEOUT, Mono.defer(() -> {
			logger.warn("Cannot follow " + this.topic.id() + " within " + READY_TIMEOUT.toSeconds()
					+ " s; the event tail: " + ((this.tail != null) ? this.tail.describe() : "none"));
			return Mono.empty();
		})
			.then(Mono.error(() -> new StreamgateException(ProblemType.SERVICE_UNAVAILABLE,
					"The events of '" + this.topic.id()
							+ "' cannot be followed now (is Kafka reachable?); retry shortly")
				.withRetryAfter(Duration.ofSeconds(5)))));
		Joining joining = new Joining(channel, buffer, mode, selection, accepts, executor);
		if (selection.view() != null) {
			// A view starts with its part as it is now, whatever the cursor: its ids are
			// the topic's, and the events between one and now may not have changed it.
			return whenReady.thenReturn(Flux.defer(() -> joinView(joining)));
		}
		if (resume.earliest() && this.topic.payloadType() == PayloadType.EVENT) {
			return whenReady.then(this.log.start(this.topic)).map((start) -> Flux.defer(() -> join(joining, start)));
		}
		if (resume.unknown()) {
			return whenReady.then(this.log.end(this.topic)).map((end) -> Flux.defer(() -> joinUnknown(joining, end)));
		}
		if (resume.earliest() || cursor == null) {
			return whenReady.thenReturn(Flux.defer(() -> join(joining, null)));
		}
		// A cursor past the end of the log (a topic created again, a made-up id) is no
		// position.
		return whenReady.then(this.log.end(this.topic))
			.map((end) -> Flux.defer(() -> end.reaches(cursor) ? join(joining, cursor) : joinUnknown(joining, end)));
	}

	private synchronized Flux<Followed> join(Joining joining, Cursor cursor) {
		if (this.ended) {
			return Flux.empty();
		}
		SubscriptionMode mode = joining.mode();
		if (cursor == null) {
			Followed first = (mode == SubscriptionMode.EVENT) ? null : currentSnapshot();
			if (first == null && mode != SubscriptionMode.EVENT) {
				// Nothing to show yet but why.
				first = this.problemWithoutDocument;
			}
			return stream(add(joining, null), (first != null) ? Flux.just(first) : Flux.empty());
		}
		if (mode == SubscriptionMode.SNAPSHOT_ONLY) {
			// Each snapshot supersedes the ones before: a resuming subscriber needs only
			// the newest.
			Followed first = cursor.reaches(this.position) ? null : currentSnapshot();
			return stream(add(joining, cursor), (first != null) ? Flux.just(first) : Flux.empty());
		}
		if (cursor.reaches(this.recent.start())) {
			Subscription subscription = new Subscription(joining.channel(), mode, joining.selection(),
					joining.accepts(), joining.buffer(), cursor, joining.executor(), this::slow);
			List<Followed> replay = new ArrayList<>();
			for (Followed kept : this.recent.items()) {
				Followed adapted = subscription.adapt(kept, this.cursors::format);
				if (adapted != null) {
					replay.add(adapted);
				}
			}
			register(subscription);
			return stream(subscription, Flux.fromIterable(replay));
		}
		return catchUp(joining, cursor);
	}

	/** A view subscriber: the part of the document as it is, then its changes. */
	private synchronized Flux<Followed> joinView(Joining joining) {
		if (this.ended) {
			return Flux.empty();
		}
		Followed first = this.views.join(joining.selection().view(), this.topic.id(),
				this.cursors.format(this.position), hasDocument() ? this.document.document() : null);
		if (first == null) {
			first = this.problemWithoutDocument;
		}
		return stream(add(joining, null), (first != null) ? Flux.just(first) : Flux.empty());
	}

	/**
	 * The cursor is older than the recent events: read the gap from Kafka, live events
	 * wait in the queue.
	 */
	private Flux<Followed> catchUp(Joining joining, Cursor cursor) {
		Cursor until = this.position;
		Followed snapshotAtJoin = (joining.mode() == SubscriptionMode.EVENT) ? null : currentSnapshot();
		Subscription subscription = add(joining, cursor);
		Flux<Followed> gap = this.log.start(this.topic).flatMapMany((start) -> {
			if (!cursor.reaches(start)) {
				return Flux.just((snapshotAtJoin != null) ? snapshotAtJoin : problem(ProblemType.POSITION_EXPIRED,
						"Events after your cursor are no longer retained; the stream continues with new events"));
			}
			Cursor[] running = { cursor };
			return this.log.read(this.topic, cursor, until).map((event) -> {
				running[0] = running[0].after(event.partition(), event.offset());
				return Followed.of(this.topic.id(), this.cursors.format(running[0]), running[0], event);
			});
		});
		return stream(subscription, gap);
	}

	/**
	 * A cursor that is no position of this topic: a problem (or the snapshot), then the
	 * events published after the end of the log as it was when the subscriber came, not
	 * the ones this node's tail had yet to read.
	 */
	private synchronized Flux<Followed> joinUnknown(Joining joining, Cursor end) {
		Followed first = (joining.mode() == SubscriptionMode.EVENT) ? null : currentSnapshot();
		if (first == null) {
			first = problem(ProblemType.POSITION_UNKNOWN,
					"Your cursor is no position of this topic (a topic of the same id deleted since, or past the end of its events); the stream continues with new events");
		}
		return stream(add(joining, end), Flux.just(first));
	}

	private Followed problem(ProblemType type, String detail) {
		return Followed.note(this.topic.id(), null, EventType.PROBLEM, ProblemJson.bytes(type, detail, null));
	}

	private Subscription add(Joining joining, Cursor skipUntil) {
		Subscription subscription = new Subscription(joining.channel(), joining.mode(), joining.selection(),
				joining.accepts(), joining.buffer(), skipUntil, joining.executor(), this::slow);
		register(subscription);
		return subscription;
	}

	private void register(Subscription subscription) {
		this.subscriptions.add(subscription);
		this.heartbeats.add(subscription);
	}

	private void unregister(Subscription subscription) {
		this.subscriptions.remove(subscription);
		this.heartbeats.remove(subscription);
	}

	private Flux<Followed> stream(Subscription subscription, Flux<Followed> first) {
		return subscription.stream(first).doFinally((signal) -> {
			subscription.cutOff();
			unregister(subscription);
			if (subscription.view() != null) {
				synchronized (this) {
					this.views.leave(subscription.view());
				}
			}
		});
	}

	private Followed currentSnapshot() {
		if (this.document == null || this.document.document() == null) {
			return null;
		}
		if (this.snapshot == null) {
			this.snapshot = Followed.note(this.topic.id(), this.cursors.format(this.position), EventType.SNAPSHOT,
					JsonPatches.write(this.document.document()));
		}
		return this.snapshot;
	}

	/**
	 * The next events after a cursor, in order on each partition; waits while there are
	 * none.
	 * @param after the cursor of the last event handled
	 * @param max how many events at most; read from Kafka, also no more once they hold
	 * {@link #READ_BYTES} of data (one at least)
	 * @return the events, or an empty list when it is time to look again
	 */
	public Mono<List<Event>> next(Cursor after, int max) {
		return this.ready.asMono().then(Mono.defer(() -> {
			Cursor until;
			synchronized (this) {
				if (after.reaches(this.position)) {
					return waitForMore(after).thenReturn(List.<Event>of());
				}
				if (after.reaches(this.recent.start())) {
					List<Event> events = new ArrayList<>(Math.min(max, this.recent.size()));
					for (Followed kept : this.recent.items()) {
						Event event = kept.event();
						if (after.isBefore(event.partition(), event.offset())) {
							events.add(event);
							if (events.size() == max) {
								break;
							}
						}
					}
					return Mono.just(events);
				}
				until = this.position;
			}
			// Behind the events in memory: read the gap from Kafka. The reader's work
			// goes on elsewhere than on the thread of the read, which serves others.
			return upTo(this.log.read(this.topic, after, until), max).publishOn(Schedulers.parallel());
		}));
	}

	/** The first events, at most {@code max} and no more once they hold READ_BYTES. */
	private static Mono<List<Event>> upTo(Flux<Event> events, int max) {
		long[] held = { 0 };
		return events.take(max).takeUntil((event) -> (held[0] += event.data().length) >= READ_BYTES).collectList();
	}

	/**
	 * Completes once there is an event after the cursor. The check is made again when the
	 * waiter registers, under the lock the tail takes to add an event: an event that came
	 * in between would otherwise wake nobody, and the reader would sleep until the
	 * recheck.
	 * @param after the reader's cursor
	 * @return completes when there is more, or after a while anyway ({@link #recheck})
	 */
	public Mono<Void> waitForMore(Cursor after) {
		return Mono.<Void>create((sink) -> {
			synchronized (this) {
				if (!after.reaches(this.position)) {
					sink.success();
					return;
				}
				this.waiters.add(sink);
			}
			sink.onDispose(() -> this.waiters.remove(sink));
		})
			// Woken on the tail's thread: the readers' work runs elsewhere.
			.publishOn(Schedulers.parallel());
	}

	/**
	 * Ends every subscription, after a last message when there is one, and stops keeping
	 * events.
	 * @param last what to send before the end, or {@code null}
	 */
	synchronized void end(Followed last) {
		this.ended = true;
		if (this.recent != null) {
			this.recent.clear();
		}
		List<Subscription> ending = new ArrayList<>(this.subscriptions);
		this.subscriptions.clear();
		ending.forEach(this.heartbeats::remove);
		Subscription.fanOut(ending, (subscription) -> {
			if (last != null) {
				subscription.offer(last);
			}
			subscription.complete();
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

	private record Joining(String channel, ClientBuffer buffer, SubscriptionMode mode, Selection selection,
			Predicate<Followed> accepts, Executor executor) {
	}

	/**
	 * A snapshot topic's document as loaded when following starts, and the newest problem
	 * when it has none.
	 *
	 * @param document the document
	 * @param problem the newest event, a problem, or {@code null}
	 */
	private record Loaded(SnapshotDocument document, Event problem) {
	}

}
