package dev.streamgate.publish.poller;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LinkHeaderTests {

	@Test
	void findsTheNextTargetAmongOtherRelations() {
		assertThat(LinkHeader.next("<https://api.github.com/repositories/1/issues?page=2>; rel=\"next\", "
				+ "<https://api.github.com/repositories/1/issues?page=5>; rel=\"last\""))
			.isEqualTo("https://api.github.com/repositories/1/issues?page=2");
		assertThat(LinkHeader.next("</items?page=1>; rel=\"prev\", </items?page=3>; rel=next"))
			.isEqualTo("/items?page=3");
	}

	@Test
	void relationTypesAreCaseInsensitiveListsAndQuotedValuesMayHoldCommas() {
		assertThat(LinkHeader.next("<a>; title=\"x, y; z\"; rel=\"last\", <b>; rel=\"prefetch NEXT\"")).isEqualTo("b");
		assertThat(LinkHeader.next("<a,b>; rel=\"next\"")).isEqualTo("a,b");
		assertThat(LinkHeader.next("<a>; title=\"a \\\"quoted\\\" rel=next\"; rel=\"last\"")).isNull();
	}

	@Test
	void onlyTheFirstRelOfALinkCounts() {
		assertThat(LinkHeader.next("<a>; rel=\"last\"; rel=\"next\"")).isNull();
	}

	@Test
	void noNextIsNull() {
		assertThat(LinkHeader.next(null)).isNull();
		assertThat(LinkHeader.next("")).isNull();
		assertThat(LinkHeader.next("<a>; rel=\"last\"")).isNull();
		assertThat(LinkHeader.next("<unterminated; rel=\"next\"")).isNull();
		assertThat(LinkHeader.next("garbage")).isNull();
	}

}
