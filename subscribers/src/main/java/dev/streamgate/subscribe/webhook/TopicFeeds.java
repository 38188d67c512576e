package dev.streamgate.subscribe.webhook;

import java.util.HashMap;
import java.util.Map;

import dev.streamgate.core.event.EventLog;
import dev.streamgate.core.event.EventTail;
import dev.streamgate.core.event.MemoryBudget;
import dev.streamgate.core.topic.Topic;

/**
 * The feeds of the topics whose webhooks this node delivers, one per topic, shared by its
 * webhooks and closed when the last one stops.
 */
final class TopicFeeds {

	private final EventLog log;

	private final EventTail tail;

	private final Map<String, TopicFeed> feeds = new HashMap<>();

	private final WebhookProperties properties;

	private final MemoryBudget budget;

	TopicFeeds(EventLog log, EventTail tail, WebhookProperties properties, MemoryBudget budget) {
		this.log = log;
		this.tail = tail;
		this.properties = properties;
		this.budget = budget;
	}

	synchronized TopicFeed acquire(Topic topic) {
		String key = key(topic);
		TopicFeed feed = this.feeds.get(key);
		if (feed == null) {
			feed = new TopicFeed(topic, this.log, this.properties.recentEvents(),
					this.properties.recentBytes().toBytes(), this.budget);
			feed.start(this.tail);
			this.feeds.put(key, feed);
		}
		feed.users++;
		return feed;
	}

	synchronized void release(TopicFeed feed) {
		feed.users--;
		if (feed.users == 0) {
			this.feeds.remove(key(feed.topic()));
			feed.close();
		}
	}

	/** A topic deleted and created again is another feed. */
	private static String key(Topic topic) {
		return topic.id() + "@" + topic.createdAt() + "#" + topic.partitions();
	}

}
