package dev.streamgate.publish.poller;

import java.net.URI;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.topic.Pagination;
import dev.streamgate.publish.poller.SourceClient.Fetch;
import dev.streamgate.publish.poller.SourceClient.Validators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class PagesTests {

	private static final URI SOURCE = URI.create("https://api.example.com/v1/items?limit=2&cursor=start");

	@Test
	void linkHeaderPagesAreMergedIntoTheFirstPageAtTheItemsPointer() {
		Pages pages = new Pages(pagination(Pagination.Type.LINK_HEADER, null, null, "/data/items", 10), SOURCE,
				1_000_000);
		URI second = pages.add(SOURCE, page("{\"data\":{\"items\":[1,2],\"total\":5},\"page\":1}",
				"<https://api.example.com/v1/items?page=2>; rel=\"next\""));
		assertThat(second).hasToString("https://api.example.com/v1/items?page=2");
		URI third = pages.add(second, page("{\"data\":{\"items\":[3,4]},\"page\":2}", "<?page=3>; rel=\"next\""));
		assertThat(third).hasToString("https://api.example.com/v1/items?page=3");
		assertThat(pages.add(third, page("{\"data\":{\"items\":[5]},\"page\":3}", ""))).isNull();
		assertThat(write(pages)).isEqualTo("{\"data\":{\"items\":[1,2,3,4,5],\"total\":5},\"page\":1}");
		assertThat(pages.truncated()).isFalse();
	}

	@Test
	void aCursorReplacesItsQueryParameterOfTheSourceUrl() {
		Pages pages = new Pages(pagination(Pagination.Type.JSON_POINTER, "/next", "cursor", "", 10), SOURCE, 1_000_000);
		URI second = pages.add(SOURCE, page("[\"a\"]", ""));
		assertThat(second).isNull();
		pages = new Pages(pagination(Pagination.Type.JSON_POINTER, "/meta/next", "cursor", "/rows", 10), SOURCE,
				1_000_000);
		second = pages.add(SOURCE, page("{\"rows\":[\"a\"],\"meta\":{\"next\":\"c 2/&\"}}", ""));
		assertThat(second).hasToString("https://api.example.com/v1/items?limit=2&cursor=c%202/%26");
		URI third = pages.add(second, page("{\"rows\":[\"b\"],\"meta\":{\"next\":3}}", ""));
		assertThat(third).hasToString("https://api.example.com/v1/items?limit=2&cursor=3");
		assertThat(pages.add(third, page("{\"rows\":[\"c\"],\"meta\":{\"next\":null}}", ""))).isNull();
		assertThat(write(pages)).isEqualTo("{\"rows\":[\"a\",\"b\",\"c\"],\"meta\":{\"next\":\"c 2/&\"}}");
	}

	@Test
	void aNextUrlAtAPointerIsResolvedAgainstThePage() {
		Pages pages = new Pages(pagination(Pagination.Type.JSON_POINTER, "/links/next", null, "/items", 10), SOURCE,
				1_000_000);
		URI second = pages.add(SOURCE, page("{\"items\":[1],\"links\":{\"next\":\"/v1/items?after=1\"}}", ""));
		assertThat(second).hasToString("https://api.example.com/v1/items?after=1");
		assertThat(pages.add(second, page("{\"items\":[2],\"links\":{\"next\":\"\"}}", ""))).isNull();
		assertThat(write(pages)).isEqualTo("{\"items\":[1,2],\"links\":{\"next\":\"/v1/items?after=1\"}}");
	}

	@Test
	void pagesStopAtMaxPagesAndSaySo() {
		Pages pages = new Pages(pagination(Pagination.Type.LINK_HEADER, null, null, "", 2), SOURCE, 1_000_000);
		URI second = pages.add(SOURCE, page("[1]", "<p2>; rel=next"));
		assertThat(pages.add(second, page("[2]", "<p3>; rel=next"))).isNull();
		assertThat(pages.truncated()).isTrue();
		assertThat(write(pages)).isEqualTo("[1,2]");
	}

	@Test
	void everyUnusablePageIsASourceFailure() {
		Pagination link = pagination(Pagination.Type.LINK_HEADER, null, null, "/items", 10);
		assertFailure(new Pages(link, SOURCE, 1_000_000), page("{\"items\":{}}", ""), SourceFailure.Kind.PAGINATION,
				"Page 1 has no array at itemsPointer '/items'");
		assertFailure(new Pages(link, SOURCE, 1_000_000), page("{\"items\":", ""), SourceFailure.Kind.NOT_JSON,
				"Page 1");
		assertFailure(new Pages(link, SOURCE, 1_000_000), page("{\"items\":[]}", "<" + SOURCE + ">; rel=\"next\""),
				SourceFailure.Kind.PAGINATION, "Page 1 names page 1 as its next page: the pages loop");
		assertFailure(new Pages(link, SOURCE, 1_000_000), page("{\"items\":[]}", "<ftp://x/y>; rel=\"next\""),
				SourceFailure.Kind.PAGINATION, "no http(s) URL");
		assertFailure(new Pages(link, SOURCE, 10), page("{\"items\":[1,2,3]}", ""), SourceFailure.Kind.TOO_LARGE,
				"streamgate.poller.max-body");
		Pagination pointer = pagination(Pagination.Type.JSON_POINTER, "/next", null, "/items", 10);
		assertFailure(new Pages(pointer, SOURCE, 1_000_000), page("{\"items\":[],\"next\":{}}", ""),
				SourceFailure.Kind.PAGINATION, "has a object at nextPointer '/next', not a URL string");
	}

	private static void assertFailure(Pages pages, Fetch page, SourceFailure.Kind kind, String message) {
		assertThatExceptionOfType(SourceFailure.class).isThrownBy(() -> pages.add(SOURCE, page))
			.satisfies((failure) -> assertThat(failure.kind()).isEqualTo(kind))
			.withMessageContaining(message);
	}

	private static Pagination pagination(Pagination.Type type, String next, String cursor, String items, int max) {
		return new Pagination(type, next, cursor, items, max);
	}

	private static Fetch page(String json, String link) {
		return Fetch.page(json.getBytes(StandardCharsets.UTF_8), Validators.NONE, link);
	}

	private static String write(Pages pages) {
		return new String(JsonPatches.write(pages.document()), StandardCharsets.UTF_8);
	}

}
