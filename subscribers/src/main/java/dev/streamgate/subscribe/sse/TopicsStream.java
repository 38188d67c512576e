package dev.streamgate.subscribe.sse;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

import io.micrometer.core.instrument.Counter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Signal;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.CursorFormat;
import dev.streamgate.core.filter.Selection;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.subscribe.follow.ClientBuffer;
import dev.streamgate.subscribe.follow.Followed;
import dev.streamgate.subscribe.follow.Resume;
import dev.streamgate.subscribe.follow.SlowSubscriberException;
import dev.streamgate.subscribe.follow.TopicFollower;
import dev.streamgate.subscribe.follow.TopicFollowers;

/**
 * One SSE stream of several topics: a subscription on each topic's follower, merged, each
 * event's id the {@link StreamCursor} of every topic's position on this stream.
 * <p>
 * A topic's position starts where its subscriber starts: the cursor it resumes from, or
 * the follower's position when it joins live in event mode. A snapshot topic joining live
 * has none until its snapshot arrives: until then the stream's ids leave it out, and a
 * resume without it starts it with a fresh snapshot rather than with patches of a
 * document the client never received.
 * <p>
 * The stream ends when one of its topics ends (deleted, its subscriber cut off for not
 * keeping up): the client reconnects with the last id and resumes every topic.
 */
final class TopicsStream {

	private final List<Part> parts;

	private final TopicFollowers followers;

	private final String channel;

	TopicsStream(List<Part> parts, TopicFollowers followers, String channel) {
		this.parts = parts;
		this.followers = followers;
		this.channel = channel;
	}

	/**
	 * The stream's frames: the retry line once every topic can be followed (an error
	 * before is a problem response), then the events of all topics.
	 * @param retry the first frame
	 * @param eventLoop the connection's event loop
	 * @param buffer what the connection holds, all its topics together
	 * @return the frames
	 */
	Flux<Frame> open(Frame retry, Executor eventLoop, ClientBuffer buffer) {
		return Flux.using(this::acquire, (held) -> {
			List<Mono<Flux<Followed>>> opening = new ArrayList<>(held.size());
			for (int i = 0; i < held.size(); i++) {
				Part part = this.parts.get(i);
				opening.add(held.get(i)
					.open(this.channel, buffer, part.mode(), part.selection(), part.resume(), eventLoop));
			}
			return Mono.zip(opening, (opened) -> opened)
				.flatMapMany((opened) -> Flux.concat(Flux.just(retry), merge(held, opened)));
		}, this::release);
	}

	private List<TopicFollower> acquire() {
		List<TopicFollower> held = new ArrayList<>(this.parts.size());
		try {
			for (Part part : this.parts) {
				held.add(this.followers.acquire(part.topic()));
			}
			return held;
		}
		catch (RuntimeException ex) {
			release(held);
			throw ex;
		}
	}

	private void release(List<TopicFollower> held) {
		held.forEach(this.followers::release);
	}

	@SuppressWarnings("unchecked")
	private Flux<Frame> merge(List<TopicFollower> held, Object[] opened) {
		List<String> topicIds = new ArrayList<>(this.parts.size());
		String[] positions = new String[this.parts.size()];
		List<Flux<Signal<Tagged>>> sources = new ArrayList<>(this.parts.size());
		for (int i = 0; i < this.parts.size(); i++) {
			Part part = this.parts.get(i);
			topicIds.add(part.topic().id());
			positions[i] = start(part, held.get(i));
			int index = i;
			sources.add(((Flux<Followed>) opened[i]).map((followed) -> new Tagged(index, followed)).materialize());
		}
		// A topic's end (completion, or a cut-off) ends the stream, after what it sent
		// before.
		return Flux.merge(sources).takeUntil((signal) -> !signal.isOnNext()).handle((signal, sink) -> {
			if (signal.isOnNext()) {
				Frame frame = frame(signal.get(), topicIds, positions);
				if (frame != null) {
					sink.next(frame);
				}
			}
			else if (signal.isOnError() && !(signal.getThrowable() instanceof SlowSubscriberException)) {
				sink.error(signal.getThrowable());
			}
		});
	}

	/** Where a topic's subscriber starts, as its part of the stream's ids. */
	private static String start(Part part, TopicFollower follower) {
		Topic topic = part.topic();
		Resume resume = part.resume();
		CursorFormat cursors = CursorFormat.of(topic);
		if (resume.cursor() != null) {
			return cursors.format(resume.cursor());
		}
		if (part.mode() != SubscriptionMode.EVENT) {
			// Known once the snapshot arrives.
			return null;
		}
		if (resume.earliest()) {
			return cursors.format(Cursor.beforeAll(topic.partitions()));
		}
		// Live: the subscriber joins at this position or after it. Events in between
		// were not sent on this stream, so resuming from here sends them, and nothing
		// twice.
		return follower.position();
	}

	private Frame frame(Tagged tagged, List<String> topicIds, String[] positions) {
		Followed followed = tagged.followed();
		if (followed.isHeartbeat()) {
			// Every topic's follower sends one; the stream needs one.
			return (tagged.index() == 0) ? Frame.HEARTBEAT : null;
		}
		Frame shared = followed.encoded(TopicsEncoder.INSTANCE);
		if (shared.carriesEvent()) {
			this.parts.get(tagged.index()).delivered().increment();
		}
		if (followed.id() == null) {
			return shared;
		}
		positions[tagged.index()] = followed.id();
		return shared.withId(StreamCursor.format(topicIds, positions));
	}

	/**
	 * One topic of the stream.
	 *
	 * @param topic the topic
	 * @param mode its subscription mode
	 * @param selection the events asked for
	 * @param resume where it resumes
	 * @param delivered its count of events written
	 */
	record Part(Topic topic, SubscriptionMode mode, Selection selection, Resume resume, Counter delivered) {
	}

	private record Tagged(int index, Followed followed) {
	}

}
