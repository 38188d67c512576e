package dev.streamgate.security;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.springframework.security.web.server.firewall.StrictServerWebExchangeFirewall;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The firewall's header checks without regular expressions say what Spring Security's
 * default ones say.
 */
class HeaderCharactersTests {

	@Test
	void namesAreAllowedExactlyWhenSpringSecuritysDefaultAllowsThem() {
		assertSameAnswers(HeaderCharacters::allowedName, StrictServerWebExchangeFirewall.ALLOWED_HEADER_NAMES);
	}

	@Test
	void valuesAreAllowedExactlyWhenSpringSecuritysDefaultAllowsThem() {
		assertSameAnswers(HeaderCharacters::allowedValue, StrictServerWebExchangeFirewall.ALLOWED_HEADER_VALUES);
	}

	@Test
	void controlCharactersAndUnassignedCodePointsAreRefused() {
		assertThat(HeaderCharacters.allowedName("X-Trace-Id")).isTrue();
		assertThat(HeaderCharacters.allowedName("X-A\u0000")).isFalse();
		assertThat(HeaderCharacters.allowedName("X\tA")).isFalse();
		assertThat(HeaderCharacters.allowedValue("a\tb")).isTrue();
		assertThat(HeaderCharacters.allowedValue("a\r\nSet-Cookie: x")).isFalse();
		assertThat(HeaderCharacters.allowedValue("\u0378")).isFalse();
		assertThat(HeaderCharacters.allowedValue("caf\u00e9 \ud83d\ude00")).isTrue();
		// Spring Security asks about an absent header's value too.
		assertThat(HeaderCharacters.allowedName(null)).isTrue();
		assertThat(HeaderCharacters.allowedValue(null)).isTrue();
	}

	/**
	 * Every code point of the basic plane alone and inside text, a sample of the others,
	 * and lone or paired surrogates.
	 */
	private static void assertSameAnswers(Predicate<String> ours, Predicate<String> springs) {
		List<String> texts = new ArrayList<>(List.of("", "Content-Type", "text/plain; charset=utf-8", "\ud83d",
				"a\ude00b", "\ud83d\ude00", "\udb40\udc01", "a\tb", "\t"));
		for (int codePoint = 0; codePoint <= 0xFFFF; codePoint++) {
			texts.add(Character.toString(codePoint));
			texts.add("ab" + Character.toString(codePoint) + "cd");
		}
		for (int codePoint = 0x10000; codePoint <= Character.MAX_CODE_POINT; codePoint += 97) {
			texts.add("x" + Character.toString(codePoint));
		}
		assertThat(ours.test(null)).isEqualTo(springs.test(null));
		for (String text : texts) {
			assertThat(ours.test(text)).as("%s", text.codePoints().mapToObj(Integer::toHexString).toList())
				.isEqualTo(springs.test(text));
		}
	}

}
