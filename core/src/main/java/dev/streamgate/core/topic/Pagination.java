package dev.streamgate.core.topic;

import java.util.List;
import java.util.regex.Pattern;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;

import dev.streamgate.core.problem.StreamgateException.FieldError;

/**
 * How a poller follows a paginated source: it fetches the pages one after the other, up
 * to {@code maxPages}, and publishes one document, the first page with the items of every
 * page concatenated at {@code itemsPointer}.
 *
 * @param type where the next page's address is: the RFC 8288 {@code Link} header with
 * {@code rel="next"}, or a JSON pointer into each page
 * @param nextPointer json-pointer: where each page names the next page's URL (absolute or
 * relative to the page), or its cursor when {@code cursorParameter} is set; a missing,
 * null or empty value ends the pages
 * @param cursorParameter json-pointer: the query parameter of the source URL that carries
 * the cursor found at {@code nextPointer}
 * @param itemsPointer where each page's array of items is; the empty string when the page
 * is the array
 * @param maxPages pages fetched per poll at most
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Schema(description = "http-poller: follow a paginated source and publish the pages as one document")
public record Pagination(@Schema(requiredMode = Schema.RequiredMode.REQUIRED) Type type,
		@Schema(description = "json-pointer: the next page's URL, or its cursor with cursorParameter",
				example = "/links/next") String nextPointer,
		@Schema(description = "json-pointer: query parameter that carries the cursor",
				example = "cursor") String cursorParameter,
		@Schema(description = "the array of items in each page, default the page itself",
				example = "/items") String itemsPointer,
		@Schema(minimum = "1", maximum = "100", description = "default 10") Integer maxPages) {

	static final int MAX_PAGES = 100;

	private static final Pattern PARAMETER = Pattern.compile("[A-Za-z0-9._~\\[\\]-]{1,100}");

	Pagination withDefaults() {
		return new Pagination(this.type, this.nextPointer, this.cursorParameter,
				(this.itemsPointer != null) ? this.itemsPointer : "", (this.maxPages != null) ? this.maxPages : 10);
	}

	void validate(List<FieldError> errors) {
		String at = "/publisher/pagination";
		if (this.type == null) {
			errors.add(new FieldError(at + "/type", "is required: link-header or json-pointer"));
			return;
		}
		if (this.type == Type.JSON_POINTER) {
			if (this.nextPointer == null || this.nextPointer.isEmpty()
					|| !TopicValidator.POINTER.matcher(this.nextPointer).matches()) {
				errors.add(new FieldError(at + "/nextPointer",
						"is required for json-pointer pagination: an RFC 6901 pointer such as /next"));
			}
			if (this.cursorParameter != null && !PARAMETER.matcher(this.cursorParameter).matches()) {
				errors.add(new FieldError(at + "/cursorParameter",
						"must be a query parameter name of 1 to 100 letters, digits or ._~[]-"));
			}
		}
		else if (this.nextPointer != null || this.cursorParameter != null) {
			errors.add(new FieldError(at, "link-header pagination takes no nextPointer nor cursorParameter"));
		}
		if (!TopicValidator.POINTER.matcher(this.itemsPointer).matches()) {
			errors.add(new FieldError(at + "/itemsPointer",
					"must be an RFC 6901 JSON pointer such as /items or the empty string"));
		}
		if (this.maxPages < 1 || this.maxPages > MAX_PAGES) {
			errors.add(new FieldError(at + "/maxPages", "must be between 1 and " + MAX_PAGES));
		}
	}

	/**
	 * Where the next page's address is.
	 */
	public enum Type {

		@JsonProperty("link-header")
		LINK_HEADER("link-header"),

		@JsonProperty("json-pointer")
		JSON_POINTER("json-pointer");

		private final String value;

		Type(String value) {
			this.value = value;
		}

		@Override
		public String toString() {
			return this.value;
		}

	}

}
