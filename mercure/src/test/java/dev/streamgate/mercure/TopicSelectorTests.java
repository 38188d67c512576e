package dev.streamgate.mercure;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mercure's selectors: {@code *}, exact topics, and RFC 6570 templates of every operator,
 * matched against the strings their expansions give.
 */
class TopicSelectorTests {

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			*                                        | https://example.com/books/1        | true
			*                                        | anything at all                    | true
			https://example.com/books/1              | https://example.com/books/1        | true
			https://example.com/books/1              | https://example.com/books/10       | false
			https://example.com/books/1              | HTTPS://example.com/books/1        | false
			https://example.com/books/{id}           | https://example.com/books/1        | true
			https://example.com/books/{id}           | https://example.com/books/a%20b    | true
			https://example.com/books/{id}           | https://example.com/books/1/2      | false
			https://example.com/books/{id}           | https://example.com/authors/1      | false
			https://example.com/books/{id}.json      | https://example.com/books/7.json   | true
			https://example.com/{+path}              | https://example.com/a/b/c?d=1      | true
			https://example.com/books{/id,page}      | https://example.com/books/1/2      | true
			https://example.com/books{/id}           | https://example.com/books          | true
			https://example.com/books{?page,size}    | https://example.com/books?page=1&size=2 | true
			https://example.com/books{?page}         | https://example.com/books/1        | false
			https://example.com/b{#frag}             | https://example.com/b#top/1        | true
			https://example.com/b{.ext}              | https://example.com/b.json         | true
			https://example.com/b{;v}                | https://example.com/b;v=1          | true
			https://example.com/b?x=1{&page}         | https://example.com/b?x=1&page=2   | true
			https://example.com/{unclosed            | https://example.com/{unclosed      | true
			https://example.com/{unclosed            | https://example.com/x              | false
			https://example.com/{a b}                | https://example.com/{a b}          | true
			https://example.com/(.*){id}             | https://example.com/(.*)1          | true
			https://example.com/(.*){id}             | https://example.com/x1             | false
			""")
	void selectsTheTopicsItsExpansionsGive(String selector, String topic, boolean selected) {
		assertThat(TopicSelector.of(selector).matches(topic)).isEqualTo(selected);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			https://example.com/books/{id}  | https://example.com/authors/1, https://example.com/books/2 | true
			https://example.com/books/{id}  | https://example.com/authors/1                             | false
			""")
	void anyTopicOfAnUpdateMaySelectIt(String selector, String topics, boolean selected) {
		assertThat(TopicSelector.anyMatches(List.of(TopicSelector.of("nothing"), TopicSelector.of(selector)),
				List.of(topics.split(",\\s*"))))
			.isEqualTo(selected);
	}

}
