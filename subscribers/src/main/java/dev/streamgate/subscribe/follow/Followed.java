package dev.streamgate.subscribe.follow;

import java.util.Arrays;
import java.util.Map;

import dev.streamgate.core.event.Cursor;
import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.filter.FilterVariables;

/**
 * What a subscription receives: an event of the topic with the cursor after it, a
 * snapshot of the current document, a problem, or a heartbeat. The same instance goes to
 * every subscription that receives it, and carries each channel's encoding of it, made
 * once.
 */
public final class Followed {

	/** Keeps an idle connection open; channels write their own keep-alive for it. */
	public static final Followed HEARTBEAT = new Followed(null, null, null, EventType.EVENT, new byte[0], 0, null);

	private final String topicId;

	private final String id;

	private final Cursor after;

	private final EventType type;

	private final byte[] data;

	private final long publishedAt;

	private final Event event;

	/**
	 * Each channel's encoding by its encoder's slot, made on first use; null before the
	 * first. Encodings are immutable: two event loops racing to encode make equal ones,
	 * and either may be kept (or neither, when one of them makes the array anew: the next
	 * use encodes again).
	 */
	private Object[] encodings;

	/** What filters see of the event, made on first use; immutable as encodings are. */
	private Map<String, Object> filterVariables;

	Followed(String topicId, String id, Cursor after, EventType type, byte[] data, long publishedAt, Event event) {
		this.topicId = topicId;
		this.id = id;
		this.after = after;
		this.type = type;
		this.data = data;
		this.publishedAt = publishedAt;
		this.event = event;
	}

	static Followed of(String topicId, String id, Cursor after, Event event) {
		return new Followed(topicId, id, after, event.type(), event.data(), event.publishedAt().toEpochMilli(), event);
	}

	/**
	 * Something that is no event of the log: a snapshot of the document, a problem.
	 * @param topicId the topic
	 * @param id the cursor it stands at, or {@code null}
	 * @param type its type
	 * @param data its JSON
	 * @return it
	 */
	public static Followed note(String topicId, String id, EventType type, byte[] data) {
		return new Followed(topicId, id, null, type, data, 0, null);
	}

	/**
	 * What a view's subscribers receive for this event: its position, other data.
	 * @param newType the type (snapshot or patch)
	 * @param newData the JSON
	 * @return it
	 */
	Followed derived(EventType newType, byte[] newData) {
		return new Followed(this.topicId, this.id, this.after, newType, newData, this.publishedAt, null);
	}

	/**
	 * The same event under another id (a subscriber ahead of this node on some
	 * partition).
	 * @param otherId the id
	 * @param otherAfter the cursor it stands for
	 * @return a copy with its own encodings
	 */
	Followed withId(String otherId, Cursor otherAfter) {
		return new Followed(this.topicId, otherId, otherAfter, this.type, this.data, this.publishedAt, this.event);
	}

	/**
	 * The same event without what its fan-out made of it (encodings, filter variables),
	 * to keep among the recent events. A kept event lives for minutes, and every young
	 * collection it survives copies it, up to fifteen times before it is old (G1): its
	 * SSE frame or webhook body is as large again as its data and dies young when the
	 * fan-out's copy goes. A reader of the kept event (a resume, a webhook behind)
	 * encodes it again on first use.
	 * @return a copy with no encodings yet
	 */
	Followed kept() {
		return withId(this.id, this.after);
	}

	public String topicId() {
		return this.topicId;
	}

	/**
	 * The cursor to resume after this, as the topic's streams write it.
	 * @return the cursor text, or {@code null} for something with no position
	 */
	public String id() {
		return this.id;
	}

	/**
	 * The topic's position after this event.
	 * @return the cursor, or {@code null} for notes
	 */
	public Cursor after() {
		return this.after;
	}

	public EventType type() {
		return this.type;
	}

	/**
	 * The type its publisher gave the event.
	 * @return the type, or {@code null} for none (and for what is no event)
	 */
	public String eventType() {
		return (this.event != null) ? this.event.attributes().type() : null;
	}

	public byte[] data() {
		return this.data;
	}

	/**
	 * When the event was published.
	 * @return epoch milliseconds, 0 for what is no published event
	 */
	public long publishedAt() {
		return this.publishedAt;
	}

	/**
	 * The event of the log.
	 * @return it, or {@code null} for notes and heartbeats
	 */
	public Event event() {
		return this.event;
	}

	/**
	 * What subscribers' filters see of the event, made once for all of them.
	 * @return the variables
	 */
	public Map<String, Object> filterVariables() {
		Map<String, Object> known = this.filterVariables;
		if (known == null) {
			known = FilterVariables.of(this.topicId, this.event);
			this.filterVariables = known;
		}
		return known;
	}

	public boolean isHeartbeat() {
		return this == HEARTBEAT;
	}

	/**
	 * This event as a channel writes it, encoded on first use.
	 * @param encoder the channel's encoder
	 * @param <T> the encoded form
	 * @return the encoding
	 */
	@SuppressWarnings("unchecked")
	public <T> T encoded(Encoder<T> encoder) {
		int slot = encoder.slot();
		Object[] known = this.encodings;
		if (known != null && slot < known.length && known[slot] != null) {
			return (T) known[slot];
		}
		T encoding = encoder.encode(this);
		if (known == null || slot >= known.length) {
			int size = Math.max(slot + 1, Encoder.count());
			known = (known != null) ? Arrays.copyOf(known, size) : new Object[size];
			this.encodings = known;
		}
		known[slot] = encoding;
		return encoding;
	}

}
