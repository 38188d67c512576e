package dev.streamgate.publish.poller;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonPointer;
import jakarta.json.JsonString;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import org.springframework.web.util.UriComponentsBuilder;
import org.springframework.web.util.UriUtils;

import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.topic.Pagination;

/**
 * The pages of one poll of a paginated source, merged as they come: the first page is the
 * document, and the items of every page are concatenated where the first page had its
 * own. Each page says where the next one is ({@code Link: rel="next"}, or a URL or cursor
 * at a JSON pointer); the pages end when a page names none or at {@code maxPages}.
 */
final class Pages {

	private final Pagination pagination;

	private final URI source;

	private final long maxBytes;

	private final JsonPointer items;

	private final JsonPointer next;

	private final List<URI> fetched = new ArrayList<>();

	private final JsonArrayBuilder merged = JsonPatches.json().createArrayBuilder();

	private JsonValue first;

	private long bytes;

	private boolean more;

	/**
	 * Starts a poll.
	 * @param pagination how the source paginates
	 * @param source the source URL, the first page
	 * @param maxBytes the most bytes all pages of a poll may have together
	 */
	Pages(Pagination pagination, URI source, long maxBytes) {
		this.pagination = pagination;
		this.source = source;
		this.maxBytes = maxBytes;
		this.items = pagination.itemsPointer().isEmpty() ? null
				: JsonPatches.json().createPointer(pagination.itemsPointer());
		this.next = (pagination.type() == Pagination.Type.JSON_POINTER)
				? JsonPatches.json().createPointer(pagination.nextPointer()) : null;
	}

	/**
	 * Adds a page.
	 * @param url where it was fetched
	 * @param fetch the answer
	 * @return where the next page is, or {@code null} when this was the last one to fetch
	 * @throws SourceFailure when the page is not JSON, has no items array, names an
	 * unusable next page, or the pages grow too large
	 */
	URI add(URI url, SourceClient.Fetch fetch) {
		this.fetched.add(url);
		int number = this.fetched.size();
		this.bytes += fetch.body().length;
		if (this.bytes > this.maxBytes) {
			throw new SourceFailure(SourceFailure.Kind.TOO_LARGE, "The first " + number + " pages have " + this.bytes
					+ " bytes; streamgate.poller.max-body allows " + this.maxBytes + " for all pages of a poll");
		}
		JsonValue page;
		try {
			page = JsonPatches.read(fetch.body());
		}
		catch (IllegalArgumentException ex) {
			throw new SourceFailure(SourceFailure.Kind.NOT_JSON, "Page " + number + " (" + fetch.body().length
					+ " bytes) is not valid JSON: " + ((ex.getMessage() != null) ? ex.getMessage() : "unreadable"));
		}
		JsonValue pageItems = at(this.items, page);
		if (!(pageItems instanceof JsonArray array)) {
			throw new SourceFailure(SourceFailure.Kind.PAGINATION,
					"Page " + number + " has no array at itemsPointer '" + this.pagination.itemsPointer() + "'");
		}
		array.forEach(this.merged::add);
		if (this.first == null) {
			this.first = page;
		}
		URI nextPage = nextPage(url, page, fetch.link(), number);
		if (nextPage == null) {
			return null;
		}
		if (number >= this.pagination.maxPages()) {
			this.more = true;
			return null;
		}
		int seen = this.fetched.indexOf(nextPage);
		if (seen >= 0) {
			throw new SourceFailure(SourceFailure.Kind.PAGINATION,
					"Page " + number + " names page " + (seen + 1) + " as its next page: the pages loop");
		}
		return nextPage;
	}

	/**
	 * The merged document of the pages added.
	 * @return the document
	 */
	JsonValue document() {
		JsonArray all = this.merged.build();
		return (this.items != null) ? this.items.replace((JsonStructure) this.first, all) : all;
	}

	/**
	 * Whether the source had more pages than {@code maxPages}.
	 * @return true when pages were left out
	 */
	boolean truncated() {
		return this.more;
	}

	/**
	 * The bytes of all pages fetched.
	 * @return the bytes
	 */
	long bytes() {
		return this.bytes;
	}

	private URI nextPage(URI url, JsonValue page, String link, int number) {
		String target;
		if (this.next == null) {
			target = LinkHeader.next(link);
		}
		else {
			JsonValue value = at(this.next, page);
			if (value == null || value == JsonValue.NULL) {
				return null;
			}
			if (value instanceof JsonString string) {
				target = string.getString();
			}
			else if (value instanceof JsonNumber numeric && this.pagination.cursorParameter() != null) {
				target = numeric.toString();
			}
			else {
				throw new SourceFailure(SourceFailure.Kind.PAGINATION, "Page " + number + " has a "
						+ value.getValueType().name().toLowerCase() + " at nextPointer '"
						+ this.pagination.nextPointer() + "', not a "
						+ ((this.pagination.cursorParameter() != null) ? "string or number cursor" : "URL string"));
			}
		}
		if (target == null || target.isEmpty()) {
			return null;
		}
		if (this.pagination.cursorParameter() != null) {
			return UriComponentsBuilder.fromUri(this.source)
				.replaceQueryParam(this.pagination.cursorParameter(),
						UriUtils.encodeQueryParam(target, StandardCharsets.UTF_8))
				.build(true)
				.toUri();
		}
		URI resolved;
		try {
			resolved = References.resolve(url, target.trim());
		}
		catch (IllegalArgumentException ex) {
			resolved = null;
		}
		if (resolved == null || resolved.getHost() == null
				|| !("http".equalsIgnoreCase(resolved.getScheme()) || "https".equalsIgnoreCase(resolved.getScheme()))) {
			throw new SourceFailure(SourceFailure.Kind.PAGINATION, "Page " + number + "'s next page is no http(s) URL");
		}
		return resolved;
	}

	private static JsonValue at(JsonPointer pointer, JsonValue value) {
		if (pointer == null) {
			return value;
		}
		if (!(value instanceof JsonStructure structure)) {
			return null;
		}
		try {
			return pointer.containsValue(structure) ? pointer.getValue(structure) : null;
		}
		catch (JsonException ex) {
			// a name where the page has an array, or the other way round
			return null;
		}
	}

}
