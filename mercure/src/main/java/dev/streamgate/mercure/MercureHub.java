package dev.streamgate.mercure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.storage.EventLog;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.PayloadType;
import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.topic.Storage;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.mercure.Update.Heading;
import dev.streamgate.subscribe.follow.Encoder;
import dev.streamgate.subscribe.follow.Followed;
import dev.streamgate.subscribe.follow.Resume;
import dev.streamgate.subscribe.follow.TopicFollower;
import dev.streamgate.subscribe.sse.Frame;

/**
 * The Mercure hub's history: every update of every Mercure topic is one event of one
 * streamgate topic ({@code streamgate.mercure.topic}, one partition, its own Kafka
 * topic), so updates keep one order, any node serves any subscriber, and a subscriber
 * resumes on any node exactly where it left.
 * <p>
 * An update's id is the publisher's, or else one the hub makes of the update's position
 * ({@code urn:streamgate:<incarnation>:<offset>}), which a resume seeks at once; a
 * publisher's own id is looked for among the newest updates, in memory first, then in
 * Kafka up to {@code streamgate.mercure.resume-scan} updates back.
 */
public final class MercureHub {

	private static final Log logger = LogFactory.getLog(MercureHub.class);

	/** The value of {@code Last-Event-ID} that asks for the whole history. */
	static final String EARLIEST = "earliest";

	private static final String ID_PREFIX = "urn:streamgate:";

	/**
	 * How far back from the end a live start looks for the newest update its subscriber
	 * receives when the follower keeps none in memory (a node that has just started).
	 */
	private static final long LIVE_SCAN = 1000;

	private final TopicStore topics;

	private final EventLog log;

	private final EventPublisher publisher;

	private final MercureProperties properties;

	private final UpdateEncoder encoder = new UpdateEncoder();

	private final HeadingEncoder headings = new HeadingEncoder();

	/** The making of the topic, shared by the requests that wait for it. */
	private final AtomicReference<Mono<Topic>> making = new AtomicReference<>();

	MercureHub(TopicStore topics, EventLog log, EventPublisher publisher, MercureProperties properties) {
		this.topics = topics;
		this.log = log;
		this.publisher = publisher;
		this.properties = properties;
	}

	/**
	 * The topic of the updates, made by the first request that needs it: a hub nobody
	 * uses leaves no topic behind.
	 * @return the topic; a 503 error while the node has not read the topics yet
	 */
	Mono<Topic> topic() {
		StoredTopic known = this.topics.get(this.properties.topic()).orElse(null);
		if (known != null) {
			return Mono.just(known.topic());
		}
		if (!this.topics.isCaughtUp()) {
			return Mono.error(notReady());
		}
		Mono<Topic> making = this.making.get();
		if (making == null) {
			Mono<Topic> made = provision().doFinally((signal) -> this.making.set(null)).cache();
			making = this.making.compareAndSet(null, made) ? made : this.making.get();
		}
		return (making != null) ? making.onErrorMap((ex) -> !(ex instanceof StreamgateException), (ex) -> notReady())
				: topic();
	}

	private StreamgateException notReady() {
		return new StreamgateException(ProblemType.NOT_READY,
				"The hub's history (topic '" + this.properties.topic() + "') is not ready yet; retry shortly")
			.withRetryAfter(Duration.ofSeconds(2));
	}

	/**
	 * Applies the configured retention to the hub's topic when it exists (a node that
	 * starts with other settings).
	 * @return completes once it applies
	 */
	Mono<Void> retainExisting() {
		if (!this.topics.isCaughtUp()) {
			return Mono.error(new IllegalStateException("the topics are not read yet"));
		}
		return Mono.justOrEmpty(this.topics.get(this.properties.topic()))
			.flatMap((known) -> retain(known.topic()))
			.then();
	}

	/**
	 * Makes the hub's topic unless it exists, and gives it the configured retention; of
	 * nodes that start together, the first makes it and the others find it.
	 * @return completes once the topic exists
	 */
	Mono<Topic> provision() {
		if (!this.topics.isCaughtUp()) {
			return Mono.error(new IllegalStateException("the topics are not read yet"));
		}
		StoredTopic known = this.topics.get(this.properties.topic()).orElse(null);
		if (known != null) {
			return retain(known.topic());
		}
		Instant now = Instant.now();
		Topic topic = new Topic(this.properties.topic(), "Mercure hub", PayloadType.EVENT, null,
				List.of(SubscriptionMode.EVENT), SubscriptionMode.EVENT, 1, this.properties.retention(),
				Storage.DEDICATED, false, now, now)
			.withDefaults();
		return this.log.create(topic)
			.then(this.log.limitBytes(topic, this.properties.retentionBytes().toBytes()))
			.onErrorResume(
					(ex) -> ex instanceof StreamgateException problem && problem.problemType() == ProblemType.CONFLICT,
					(ex) -> {
						// Another node made the events topic first: its definition
						// follows.
						logger.debug("The hub's topic exists already: " + ex.getMessage());
						return Mono.delay(Duration.ofSeconds(2)).then();
					})
			.then(Mono.defer(() -> {
				StoredTopic saved = this.topics.get(topic.id()).orElse(null);
				return (saved != null) ? Mono.just(saved.topic()) : this.topics.save(topic).map(StoredTopic::topic);
			}));
	}

	/** The existing topic with the retention the configuration gives now. */
	private Mono<Topic> retain(Topic topic) {
		Mono<Void> bytes = this.log.limitBytes(topic, this.properties.retentionBytes().toBytes());
		if (topic.retention().equals(this.properties.retention())) {
			return bytes.thenReturn(topic);
		}
		Topic retained = new Topic(topic.id(), topic.name(), topic.payloadType(), topic.publisher(),
				topic.subscriptionModes(), topic.defaultSubscriptionMode(), topic.partitions(),
				this.properties.retention(), topic.storage(), topic.isPublic(), topic.createdAt(), Instant.now(),
				topic.schema(), topic.sharedPartition());
		return bytes.then(this.log.update(topic, retained)).then(this.topics.save(retained)).map(StoredTopic::topic);
	}

	/**
	 * Publishes an update; completes once Kafka has it.
	 * @param update the update
	 * @return its id: the publisher's, or the one made of its position
	 */
	Mono<String> publish(Update update) {
		return topic().flatMap((topic) -> this.publisher.publish(topic, List.of(update.json()))
			.map((publication) -> (update.id() != null) ? update.id()
					: generatedId(topic, publication.positions().get(0).offset())));
	}

	/**
	 * The id of the newest update, or {@code earliest} when there is none.
	 * @return the id
	 */
	Mono<String> lastEventId() {
		StoredTopic known = this.topics.get(this.properties.topic()).orElse(null);
		if (known == null) {
			return Mono.just(EARLIEST);
		}
		Topic topic = known.topic();
		return this.log.newest(topic, (event) -> Update.heading(event.data()) != null, LIVE_SCAN)
			.map((event) -> idOf(topic, event))
			.defaultIfEmpty(EARLIEST);
	}

	/**
	 * Where a subscription starts, and the {@code Last-Event-ID} its response carries.
	 * @param topic the hub's topic
	 * @param follower the node's follower of it
	 * @param lastEventId the id the subscriber sent, or {@code null}
	 * @param subscriber the subscriber: a live start names the newest update it receives,
	 * never one it may not see
	 * @return the start
	 */
	Mono<Start> start(Topic topic, TopicFollower follower, String lastEventId, Subscriber subscriber) {
		if (lastEventId == null || lastEventId.isEmpty()) {
			// Live: after the newest update the subscriber receives, which the response
			// names; the newer ones it does not receive would be skipped anyway.
			Followed newest = follower.newest((kept) -> {
				Heading heading = kept.encoded(this.headings);
				return heading != null && subscriber.receives(heading);
			});
			if (newest != null) {
				return Mono.just(new Start(Resume.after(Cursor.of(newest.event().offset())),
						newest.encoded(this.headings).id()));
			}
			return this.log.newest(topic, (event) -> {
				Heading heading = Update.heading(event.data());
				return heading != null && subscriber.receives(heading);
			}, Math.min(LIVE_SCAN, this.properties.resumeScan() + 1L))
				.map((event) -> new Start(Resume.after(Cursor.of(event.offset())), idOf(topic, event)))
				.switchIfEmpty(Mono.fromSupplier(() -> fromNow(follower, EARLIEST)));
		}
		if (EARLIEST.equals(lastEventId)) {
			return Mono.just(new Start(Resume.EARLIEST, EARLIEST));
		}
		Long offset = offsetOf(topic, lastEventId);
		if (offset != null) {
			return Mono.zip(this.log.start(topic), this.log.end(topic))
				.map((bounds) -> (offset >= bounds.getT1().last(0) && offset <= bounds.getT2().last(0))
						? new Start(Resume.after(Cursor.of(offset)), lastEventId) : unknown(follower));
		}
		Followed kept = follower.newest((candidate) -> {
			Heading heading = candidate.encoded(this.headings);
			return heading != null && lastEventId.equals(heading.id());
		});
		Mono<Event> found = (kept != null) ? Mono.just(kept.event())
				: (this.properties.resumeScan() > 0) ? this.log.newest(topic,
						(event) -> lastEventId.equals(idOf(topic, event)), this.properties.resumeScan()) : Mono.empty();
		return found.map((event) -> new Start(Resume.after(Cursor.of(event.offset())), lastEventId))
			.switchIfEmpty(Mono.fromSupplier(() -> unknown(follower)));
	}

	/**
	 * An id the hub does not know (made up, from before retention, or further back than
	 * it looks): the updates from now, and {@code earliest} in the response, so that the
	 * subscriber knows it may have missed some and fetches the resource again.
	 */
	private static Start unknown(TopicFollower follower) {
		return fromNow(follower, EARLIEST);
	}

	/**
	 * The updates after those the follower has read now: an update published once the
	 * subscriber has seen its stream open (its first bytes go out before it joins) still
	 * reaches it.
	 */
	private static Start fromNow(TopicFollower follower, String lastEventId) {
		Cursor position = follower.cursor();
		return new Start((position != null) ? Resume.after(position) : Resume.LIVE, lastEventId);
	}

	/** The id of an update's event. */
	static String idOf(Topic topic, Event event) {
		Heading heading = Update.heading(event.data());
		return (heading != null && heading.id() != null) ? heading.id() : generatedId(topic, event.offset());
	}

	static String generatedId(Topic topic, long offset) {
		return generatedId(topic.incarnation(), offset);
	}

	private static String generatedId(String incarnation, long offset) {
		return ID_PREFIX + incarnation + ":" + offset;
	}

	/** The incarnation of the hub's topic as this node knows it now. */
	private String incarnation() {
		return this.topics.get(this.properties.topic()).map((known) -> known.topic().incarnation()).orElse("0");
	}

	/** The offset an id the hub made points at, or null for another id. */
	static Long offsetOf(Topic topic, String id) {
		String prefix = ID_PREFIX + topic.incarnation() + ":";
		if (!id.startsWith(prefix)) {
			return null;
		}
		try {
			long offset = Long.parseLong(id.substring(prefix.length()));
			return (offset >= 0) ? offset : null;
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/**
	 * Each event of the hub's topic as an update and its Server-Sent Event, made once for
	 * every subscriber of the node.
	 * @return the encoder
	 */
	UpdateEncoder encoder() {
		return this.encoder;
	}

	/**
	 * Where a subscription starts.
	 *
	 * @param resume the position in the hub's topic
	 * @param lastEventId the {@code Last-Event-ID} of the response: the id of the update
	 * before the first one sent, or {@code earliest}
	 */
	record Start(Resume resume, String lastEventId) {
	}

	/**
	 * An update and its frame.
	 *
	 * @param update the update
	 * @param frame its Server-Sent Event
	 */
	record Delivered(Update update, Frame frame) {
	}

	/**
	 * Reads the heading of the hub topic's events, its id the one the subscriber sees:
	 * what resumes look for among the updates the follower keeps, read once for all.
	 */
	final class HeadingEncoder extends Encoder<Heading> {

		@Override
		protected Heading encode(Followed followed) {
			Event event = followed.event();
			Heading heading = (event != null) ? Update.heading(event.data()) : null;
			if (heading == null || heading.id() != null) {
				return heading;
			}
			return heading.withId(generatedId(incarnation(), event.offset()));
		}

	}

	/** Encodes the hub topic's events. */
	final class UpdateEncoder extends Encoder<Delivered> {

		private static final Delivered NONE = new Delivered(null, null);

		@Override
		protected Delivered encode(Followed followed) {
			Event event = followed.event();
			Update update = (event != null) ? Update.parse(event.data()) : null;
			if (update == null) {
				return NONE;
			}
			String id = Objects.requireNonNullElseGet(update.id(), () -> generatedId(incarnation(), event.offset()));
			return new Delivered(update, Frame.of(update.frame(id), followed.publishedAt()));
		}

	}

}
