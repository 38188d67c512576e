package dev.streamgate.core.topic;

import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * RFC 7386 JSON Merge Patch.
 */
public final class MergePatch {

	/** The media type of a merge patch. */
	public static final String MEDIA_TYPE = "application/merge-patch+json";

	private MergePatch() {
	}

	/**
	 * Applies a merge patch.
	 * @param target the document to patch; not modified
	 * @param patch the merge patch
	 * @return the patched document
	 */
	public static JsonNode apply(JsonNode target, JsonNode patch) {
		if (!patch.isObject()) {
			return patch.deepCopy();
		}
		ObjectNode result = (target != null && target.isObject()) ? (ObjectNode) target.deepCopy()
				: ((ObjectNode) patch).objectNode();
		for (Map.Entry<String, JsonNode> member : patch.properties()) {
			if (member.getValue().isNull()) {
				result.remove(member.getKey());
			}
			else {
				result.set(member.getKey(), apply(result.get(member.getKey()), member.getValue()));
			}
		}
		return result;
	}

}
