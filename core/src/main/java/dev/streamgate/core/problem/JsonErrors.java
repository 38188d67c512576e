package dev.streamgate.core.problem;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

/**
 * What is wrong with a JSON document a client sent, in the client's terms: the JSON
 * reader's messages name Java types, its own configuration classes and settings
 * ({@code CoercionConfig}, {@code StreamReadConstraints.getMaxNestingDepth()}), which
 * mean nothing to a client and tell an attacker what runs here.
 */
public final class JsonErrors {

	/** The reader's reference to the setting behind a limit. */
	private static final Pattern SETTING = Pattern.compile(",? ?from `[^`]*`\\)?");

	/** Java and reader jargon at the end of a message. */
	private static final Pattern JARGON = Pattern
		.compile("\\s*\\((but might if|through reference chain|for Object starting at|start marker at)[^)]*\\)");

	private JsonErrors() {
	}

	/**
	 * Why a document could not be read: its syntax, or a limit it goes past.
	 * @param ex the reader's failure
	 * @return the reason, one line, without the reader's internals
	 */
	public static String syntax(JacksonException ex) {
		String message = firstLine(ex.getOriginalMessage());
		message = SETTING.matcher(message).replaceAll(")").replace("))", ")");
		message = JARGON.matcher(message).replaceAll("");
		return message.replace("`", "'");
	}

	/**
	 * Why a field of a document could not be bound: what it must be.
	 * @param ex the binder's failure
	 * @return the reason, to follow the field's pointer
	 */
	public static String field(JacksonException ex) {
		if (ex instanceof UnrecognizedPropertyException) {
			return "is not a known field";
		}
		if (ex instanceof InvalidFormatException format) {
			return "cannot be " + format.getValue() + ": expected " + expected(format.getTargetType());
		}
		if (ex instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
			return "must be " + expected(mismatch.getTargetType());
		}
		return syntax(ex);
	}

	/**
	 * What a value of a Java type looks like in JSON.
	 * @param type the type
	 * @return its description, with its article
	 */
	public static String expected(Class<?> type) {
		if (type == Duration.class) {
			return "an ISO-8601 duration such as PT0.5S or P7D";
		}
		if (type.isEnum()) {
			return "one of "
					+ Arrays.stream(type.getEnumConstants()).map(Object::toString).collect(Collectors.joining(", "));
		}
		if (type == java.net.URI.class) {
			return "a URL";
		}
		if (type == Integer.class || type == int.class || type == Long.class || type == long.class
				|| type == Short.class || type == short.class) {
			return "a whole number";
		}
		if (Number.class.isAssignableFrom(type) || type == double.class || type == float.class) {
			return "a number";
		}
		if (type == Boolean.class || type == boolean.class) {
			return "true or false";
		}
		if (type == String.class || CharSequence.class.isAssignableFrom(type)) {
			return "a string";
		}
		if (Collection.class.isAssignableFrom(type) || type.isArray()) {
			return "an array";
		}
		if (Map.class.isAssignableFrom(type) || type.isRecord()) {
			return "an object";
		}
		String name = type.getSimpleName().toLowerCase(Locale.ROOT);
		return ("aeiou".indexOf(name.charAt(0)) >= 0 ? "an " : "a ") + name;
	}

	private static String firstLine(String message) {
		if (message == null) {
			return "the JSON could not be read";
		}
		int end = message.indexOf('\n');
		return (end >= 0) ? message.substring(0, end) : message;
	}

}
