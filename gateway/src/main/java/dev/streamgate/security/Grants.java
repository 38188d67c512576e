package dev.streamgate.security;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The rights a token's {@code streamgate} claim grants: admin, and topic id patterns to
 * publish to and subscribe to, where {@code *} matches any run of characters and
 * {@code orders.*} covers {@code orders} too. Admin implies publish and subscribe
 * everywhere.
 *
 * @param admin whether the topic and webhook APIs are allowed
 * @param publish patterns of topics that may be published to
 * @param subscribe patterns of topics that may be streamed
 */
record Grants(boolean admin, List<Pattern> publish, List<Pattern> subscribe) {

	static final Grants NONE = new Grants(false, List.of(), List.of());

	/**
	 * Reads the claim; anything malformed grants nothing rather than failing.
	 * @param claim the value of the {@code streamgate} claim, or {@code null}
	 * @return the grants
	 */
	static Grants from(Object claim) {
		if (!(claim instanceof Map<?, ?> map)) {
			return NONE;
		}
		return new Grants(Boolean.TRUE.equals(map.get("admin")), patterns(map.get("publish")),
				patterns(map.get("subscribe")));
	}

	private static List<Pattern> patterns(Object value) {
		if (!(value instanceof List<?> list)) {
			return List.of();
		}
		return list.stream().filter(String.class::isInstance).map(String.class::cast).map(Grants::wildcard).toList();
	}

	/**
	 * A topic id pattern: {@code *} matches any run of characters, and a pattern ending
	 * in {@code .*} also matches the id before the dot ({@code orders.*} covers
	 * {@code orders} and {@code orders.eu}, not {@code ordersx}), the way MQTT's
	 * {@code orders/#} covers {@code orders}.
	 */
	private static Pattern wildcard(String pattern) {
		boolean family = pattern.length() > 2 && pattern.endsWith(".*");
		String body = family ? pattern.substring(0, pattern.length() - 2) : pattern;
		StringBuilder regex = new StringBuilder();
		for (String part : body.split("\\*", -1)) {
			if (!regex.isEmpty()) {
				regex.append(".*");
			}
			regex.append(Pattern.quote(part));
		}
		if (family) {
			regex.append("(\\..*)?");
		}
		return Pattern.compile(regex.toString());
	}

	boolean canPublish(String topicId) {
		return this.admin || matches(this.publish, topicId);
	}

	boolean canSubscribe(String topicId) {
		return this.admin || matches(this.subscribe, topicId);
	}

	private static boolean matches(List<Pattern> patterns, String topicId) {
		return topicId != null && patterns.stream().anyMatch((pattern) -> pattern.matcher(topicId).matches());
	}

}
