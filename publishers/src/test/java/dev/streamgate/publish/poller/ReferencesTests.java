package dev.streamgate.publish.poller;

import java.net.URI;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The examples of RFC 3986 section 5.4 that {@link URI#resolve} gets wrong, and the
 * common ones.
 */
class ReferencesTests {

	private static final URI BASE = URI.create("http://a/b/c/d;p?q");

	@Test
	void resolvesAsRfc3986Does() {
		assertThat(References.resolve(BASE, "?y")).hasToString("http://a/b/c/d;p?y");
		assertThat(References.resolve(BASE, "")).hasToString("http://a/b/c/d;p?q");
		assertThat(References.resolve(BASE, "#s")).hasToString("http://a/b/c/d;p?q#s");
		assertThat(References.resolve(BASE, "g")).hasToString("http://a/b/c/g");
		assertThat(References.resolve(BASE, "/g?y")).hasToString("http://a/g?y");
		assertThat(References.resolve(BASE, "//g")).hasToString("http://g");
		assertThat(References.resolve(BASE, "../g")).hasToString("http://a/b/g");
		assertThat(References.resolve(BASE, "g?y#s")).hasToString("http://a/b/c/g?y#s");
		assertThat(References.resolve(BASE, "https://other/x")).hasToString("https://other/x");
	}

}
