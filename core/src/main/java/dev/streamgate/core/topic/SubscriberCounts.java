package dev.streamgate.core.topic;

/**
 * How many subscribers a topic has on this node, for the topic status.
 */
public interface SubscriberCounts {

	/**
	 * The channel these counts are about, e.g. {@code sse}.
	 * @return the channel name
	 */
	String channel();

	/**
	 * Connected subscribers of a topic on this node.
	 * @param topicId the topic id
	 * @return the count
	 */
	int connected(String topicId);

}
