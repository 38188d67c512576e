package dev.streamgate.core.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;

/**
 * The event types a subscriber asks for: names such as {@code order.created}, or patterns
 * in which {@code *} stands for any characters ({@code order.*}, {@code *}). An event
 * without a type matches only {@code *}.
 */
public final class EventTypes {

	/** The longest type name. */
	public static final int MAX_LENGTH = 256;

	/** The most patterns of one subscription. */
	public static final int MAX_PATTERNS = 64;

	/** Letters, digits and {@code . _ - : / +}: CloudEvents and Svix type names fit. */
	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:/+-]{1," + MAX_LENGTH + "}");

	private static final Pattern PATTERN = Pattern.compile("[A-Za-z0-9._:/+*-]{1," + MAX_LENGTH + "}");

	private final List<String> patterns;

	private final List<Pattern> compiled;

	private EventTypes(List<String> patterns) {
		this.patterns = List.copyOf(patterns);
		this.compiled = patterns.stream().map(EventTypes::glob).toList();
	}

	/**
	 * The types asked for.
	 * @param patterns names and patterns
	 * @param pointer where they are in the request, for the problem
	 * @return the types
	 * @throws StreamgateException (400) for an empty list, or a pattern with other
	 * characters
	 */
	public static EventTypes of(List<String> patterns, String pointer) {
		if (patterns.isEmpty() || patterns.size() > MAX_PATTERNS) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					"Name from 1 to " + MAX_PATTERNS + " event types (or patterns with *), not " + patterns.size())
				.withErrors(List.of(new StreamgateException.FieldError(pointer, "1 to " + MAX_PATTERNS + " types")));
		}
		List<StreamgateException.FieldError> errors = new ArrayList<>();
		for (String pattern : patterns) {
			if (pattern == null || !PATTERN.matcher(pattern).matches()) {
				errors.add(new StreamgateException.FieldError(pointer, "'" + pattern + "' is no event type: 1 to "
						+ MAX_LENGTH + " letters, digits, . _ - : / + and * for any"));
			}
		}
		if (!errors.isEmpty()) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					errors.stream().map(StreamgateException.FieldError::detail).reduce((a, b) -> a + "; " + b).get())
				.withErrors(errors);
		}
		return new EventTypes(patterns);
	}

	/**
	 * Checks a type a publication names.
	 * @param type the type
	 * @return it
	 * @throws StreamgateException (400) when it is no type name
	 */
	public static String name(String type) {
		if (!NAME.matcher(type).matches()) {
			throw new StreamgateException(ProblemType.INVALID_PARAMETER,
					"'" + type + "' is no event type: 1 to " + MAX_LENGTH
							+ " letters, digits and . _ - : / + (e.g. order.created)")
				.withErrors(List.of(new StreamgateException.FieldError("type", "not an event type name")));
		}
		return type;
	}

	/**
	 * Splits a query parameter's comma-separated list.
	 * @param text e.g. {@code order.*,invoice.paid}
	 * @return the patterns
	 */
	public static List<String> split(String text) {
		return List.of(text.split(",", -1)).stream().map(String::trim).toList();
	}

	public List<String> patterns() {
		return this.patterns;
	}

	/**
	 * Whether an event's type is asked for.
	 * @param type the type, or {@code null} for none
	 * @return true when a pattern matches it
	 */
	public boolean matches(String type) {
		String name = (type != null) ? type : "";
		for (Pattern pattern : this.compiled) {
			if (pattern.matcher(name).matches()) {
				return true;
			}
		}
		return false;
	}

	private static Pattern glob(String pattern) {
		return Pattern.compile(
				Stream.of(pattern.split("\\*", -1)).map(Pattern::quote).collect(Collectors.joining(".*")),
				Pattern.DOTALL);
	}

}
