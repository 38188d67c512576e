package dev.streamgate.subscribe.webhook;

import java.util.HashMap;
import java.util.Map;

import dev.streamgate.core.topic.Topic;
import dev.streamgate.subscribe.follow.TopicFollowers;

/**
 * The feeds of the topics whose webhooks this node delivers, one per topic, shared by its
 * webhooks and released when the last one stops.
 */
final class TopicFeeds {

	private final TopicFollowers followers;

	private final Map<String, TopicFeed> feeds = new HashMap<>();

	TopicFeeds(TopicFollowers followers) {
		this.followers = followers;
	}

	synchronized TopicFeed acquire(Topic topic) {
		String key = key(topic);
		TopicFeed feed = this.feeds.get(key);
		if (feed == null) {
			feed = new TopicFeed(this.followers.acquire(topic));
			this.feeds.put(key, feed);
		}
		feed.users++;
		return feed;
	}

	synchronized void release(TopicFeed feed) {
		feed.users--;
		if (feed.users == 0) {
			this.feeds.remove(key(feed.topic()));
			this.followers.release(feed.follower());
		}
	}

	/** A topic deleted and created again is another feed. */
	private static String key(Topic topic) {
		return topic.id() + "@" + topic.createdAt() + "#" + topic.partitions();
	}

}
