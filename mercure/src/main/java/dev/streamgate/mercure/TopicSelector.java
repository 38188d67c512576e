package dev.streamgate.mercure;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * A Mercure topic selector: {@code *} (every topic), an RFC 6570 URI template
 * ({@code https://example.com/books/{id}}) matched against the topic, or else the exact
 * topic string. A template that does not parse is taken as an exact string, as Mercure's
 * hub does.
 * <p>
 * Templates are matched by the regular expression of every string their expansions can
 * give, operator by operator (RFC 6570 section 3.2): a simple variable takes unreserved
 * characters and percent-encoded octets, {@code +} and {@code #} reserved ones too,
 * {@code . / ; ? &} their prefix before each value. The Java libraries of URI templates
 * expand them but none matches them, hence this one.
 */
public final class TopicSelector {

	/** Every topic. */
	public static final String ANY = "*";

	private static final String PCT = "%[0-9A-Fa-f]{2}";

	private static final String UNRESERVED = "A-Za-z0-9\\-._~";

	private static final String RESERVED = ":/?#\\[\\]@!$&'()*+,;=";

	/** Templates compiled, shared by every subscription on the node; bounded. */
	private static final Map<String, TopicSelector> known = new ConcurrentHashMap<>();

	private static final int KNOWN_MAX = 10_000;

	private final String selector;

	private final Pattern template;

	private TopicSelector(String selector, Pattern template) {
		this.selector = selector;
		this.template = template;
	}

	/**
	 * The selector of a string.
	 * @param selector {@code *}, a URI template or a topic
	 * @return the selector
	 */
	public static TopicSelector of(String selector) {
		if (selector.indexOf('{') < 0) {
			return new TopicSelector(selector, null);
		}
		TopicSelector compiled = known.get(selector);
		if (compiled == null) {
			compiled = new TopicSelector(selector, compile(selector));
			if (known.size() >= KNOWN_MAX) {
				known.clear();
			}
			known.put(selector, compiled);
		}
		return compiled;
	}

	public String selector() {
		return this.selector;
	}

	/**
	 * Whether the selector selects a topic.
	 * @param topic the topic
	 * @return true when it does
	 */
	public boolean matches(String topic) {
		if (ANY.equals(this.selector) || this.selector.equals(topic)) {
			return true;
		}
		return this.template != null && this.template.matcher(topic).matches();
	}

	/**
	 * Whether one of the selectors selects one of the topics.
	 * @param selectors the selectors
	 * @param topics the topics
	 * @return true when one does
	 */
	public static boolean anyMatches(List<TopicSelector> selectors, List<String> topics) {
		for (TopicSelector selector : selectors) {
			for (String topic : topics) {
				if (selector.matches(topic)) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * The expression of a template's expansions, or {@code null} when it is no template.
	 */
	static Pattern compile(String template) {
		StringBuilder regex = new StringBuilder();
		int at = 0;
		while (at < template.length()) {
			int open = template.indexOf('{', at);
			int close = (open < 0) ? -1 : template.indexOf('}', open);
			if (open < 0) {
				if (template.indexOf('}', at) >= 0) {
					return null;
				}
				regex.append(Pattern.quote(template.substring(at)));
				break;
			}
			if (close < 0 || template.substring(at, open).indexOf('}') >= 0) {
				return null;
			}
			if (open > at) {
				regex.append(Pattern.quote(template.substring(at, open)));
			}
			String expression = expression(template.substring(open + 1, close));
			if (expression == null) {
				return null;
			}
			regex.append(expression);
			at = close + 1;
		}
		return Pattern.compile(regex.toString());
	}

	/** The expression of one {...}, or null when it is malformed. */
	private static String expression(String body) {
		if (body.isEmpty()) {
			return null;
		}
		char operator = body.charAt(0);
		String variables = ("+#./;?&".indexOf(operator) >= 0) ? body.substring(1) : body;
		if (variables.isEmpty() || !variables
			.matches("[A-Za-z0-9_.%]+(:[1-9][0-9]{0,3}|\\*)?" + "(,[A-Za-z0-9_.%]+(:[1-9][0-9]{0,3}|\\*)?)*")) {
			return null;
		}
		String simple = "(?:[" + UNRESERVED + ",]|" + PCT + ")*";
		String named = "(?:[" + UNRESERVED + ",=]|" + PCT + ")*";
		return switch (operator) {
			case '+' -> "(?:[" + UNRESERVED + RESERVED + "]|" + PCT + ")*";
			case '#' -> "(?:#(?:[" + UNRESERVED + RESERVED + "]|" + PCT + ")*)?";
			case '.' -> "(?:\\." + simple + ")*";
			case '/' -> "(?:/" + simple + ")*";
			case ';' -> "(?:;" + named + ")*";
			case '?' -> "(?:\\?" + "(?:[" + UNRESERVED + ",=&]|" + PCT + ")*)?";
			case '&' -> "(?:&" + named + ")*";
			default -> simple;
		};
	}

	@Override
	public String toString() {
		return this.selector;
	}

}
