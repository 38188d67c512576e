package dev.streamgate.core.patch;

import java.util.List;
import java.util.regex.Pattern;

import jakarta.json.JsonArray;
import jakarta.json.JsonException;
import jakarta.json.JsonPointer;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;

/**
 * One part of a snapshot topic's document, named by an RFC 6901 JSON pointer
 * ({@code /prices/EURUSD}): a subscriber of the view receives that part as its snapshot,
 * and for each change of the document only the patch that turns the part's previous value
 * into its next one, with paths relative to the part. The part of a document that has no
 * value at the pointer is {@code null}; a part that is no object or array (a number, a
 * string) changes by a {@code replace} of the whole value, path {@code ""}.
 */
public final class DocumentView {

	/** The longest pointer. */
	public static final int MAX_LENGTH = 1024;

	/**
	 * RFC 6901: each token after a {@code /}, {@code ~} only as {@code ~0} or {@code ~1}.
	 */
	private static final Pattern SYNTAX = Pattern.compile("(/([^~/]|~[01])*)+");

	private final String pointer;

	private final JsonPointer compiled;

	private DocumentView(String pointer, JsonPointer compiled) {
		this.pointer = pointer;
		this.compiled = compiled;
	}

	/**
	 * A view.
	 * @param pointer an RFC 6901 JSON pointer, starting with {@code /}
	 * @param where where it is in the request, for the problem
	 * @return the view
	 * @throws StreamgateException (400) when it is no JSON pointer
	 */
	public static DocumentView of(String pointer, String where) {
		if (pointer.length() > MAX_LENGTH || !SYNTAX.matcher(pointer).matches()) {
			throw invalid(pointer, where, "a JSON pointer (RFC 6901) of 1 to " + MAX_LENGTH
					+ " characters starting with /, e.g. /prices/EURUSD");
		}
		try {
			return new DocumentView(pointer, JsonPatches.json().createPointer(pointer));
		}
		catch (JsonException ex) {
			throw invalid(pointer, where, "not a JSON pointer (RFC 6901): " + ex.getMessage());
		}
	}

	private static StreamgateException invalid(String pointer, String where, String detail) {
		return new StreamgateException(ProblemType.INVALID_PARAMETER, "'" + pointer + "' is " + detail)
			.withErrors(List.of(new StreamgateException.FieldError(where, detail)));
	}

	public String pointer() {
		return this.pointer;
	}

	/**
	 * The part of a document this view shows.
	 * @param document the document
	 * @return the value at the pointer, {@link JsonValue#NULL} when it has none
	 */
	public JsonValue select(JsonStructure document) {
		try {
			return this.compiled.containsValue(document) ? this.compiled.getValue(document) : JsonValue.NULL;
		}
		catch (JsonException ex) {
			// A pointer through a value that is no structure, or an index that is no
			// number.
			return JsonValue.NULL;
		}
	}

	/**
	 * What a view's subscriber receives when the part it shows may have changed.
	 * @param before the part as it was
	 * @param after the part as it is
	 * @return the patch from one to the other, {@code null} when the part did not change
	 */
	public static JsonArray change(JsonValue before, JsonValue after) {
		// Patches rebuild only the structures along their paths: an untouched part is the
		// same instance.
		if (before == after || before.equals(after)) {
			return null;
		}
		return JsonPatches.diffValues(before, after);
	}

}
