package dev.streamgate.core.storage;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.streamgate.core.storage.Presence.Entry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every presence promises, over Kafka and in memory alike.
 */
public abstract class PresenceContract {

	protected static final Duration TIMEOUT = Duration.ofSeconds(15);

	/** The presence under test. */
	protected abstract Presence presence();

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static List<String> values(Presence presence) {
		return presence.entries()
			.block(TIMEOUT)
			.stream()
			.map((entry) -> entry.key() + "=" + new String(entry.value(), StandardCharsets.UTF_8))
			.sorted()
			.toList();
	}

	@Test
	void heldEntriesAreListedWithTheirNodeUntilReleased() {
		Presence presence = presence();
		presence.hold("a", utf8("1")).block(TIMEOUT);
		presence.hold("b", utf8("2")).block(TIMEOUT);
		assertThat(values(presence)).containsExactly("a=1", "b=2");
		assertThat(presence.entries().block(TIMEOUT)).extracting(Entry::node).doesNotContainNull().hasSize(2);

		presence.release("a").block(TIMEOUT);
		assertThat(values(presence)).containsExactly("b=2");
	}

	@Test
	void holdingAKeyAgainReplacesItsValue() {
		Presence presence = presence();
		presence.hold("a", utf8("1")).block(TIMEOUT);
		presence.hold("a", utf8("2")).block(TIMEOUT);
		assertThat(values(presence)).containsExactly("a=2");
	}

	@Test
	void releasingAnUnknownKeyChangesNothing() {
		Presence presence = presence();
		presence.hold("a", utf8("1")).block(TIMEOUT);
		presence.release("unknown").block(TIMEOUT);
		assertThat(values(presence)).containsExactly("a=1");
	}

}
