package dev.streamgate.core.topic;

/**
 * A topic as stored, with the revision that identifies this version of it.
 *
 * @param topic the complete topic
 * @param revision grows with every write of any topic; the ETag is derived from it
 */
public record StoredTopic(Topic topic, long revision) {

	public String id() {
		return this.topic.id();
	}

	/**
	 * The strong entity tag of this version.
	 * @return the quoted ETag value
	 */
	public String etag() {
		return "\"" + this.revision + "\"";
	}

}
