package dev.streamgate.diagnostics;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The interval of the periodic collections as the committed heap changes, looked at once
 * a (shortest) interval. The JVM itself is in {@link IdleHeapReturnTests}.
 */
class PeriodicCollectionsTests {

	private static final long MIB = 1 << 20;

	private final List<Long> set = new ArrayList<>();

	private final PeriodicCollections periodic = new PeriodicCollections(60_000, 960_000, this.set::add);

	@Test
	void oneCycleThatGivesHeapBackSpacesThemOutUntilTheHeapGrows() {
		assertThat(this.periodic.look(1000 * MIB)).isEqualTo(60_000);
		assertThat(this.periodic.look(1000 * MIB)).isEqualTo(60_000);
		assertThat(this.periodic.look(680 * MIB)).as("given back").isEqualTo(960_000);
		for (int i = 0; i < 100; i++) {
			assertThat(this.periodic.look(680 * MIB)).isEqualTo(960_000);
		}
		assertThat(this.periodic.look(684 * MIB)).as("grown").isEqualTo(60_000);
		assertThat(this.periodic.look(600 * MIB)).as("given back again").isEqualTo(960_000);
		assertThat(this.set).containsExactly(960_000L, 60_000L, 960_000L);
	}

	@Test
	void aHeapThatNeverShrinksDoublesTheIntervalEveryThreeIntervals() {
		List<Long> intervals = new ArrayList<>();
		for (int look = 0; look < 60; look++) {
			intervals.add(this.periodic.look(500 * MIB));
		}
		// Three looks at 60 s, six at 120 s, twelve at 240 s, twenty-four at 480 s.
		assertThat(intervals.subList(0, 3)).containsOnly(60_000L);
		assertThat(this.set).containsExactly(120_000L, 240_000L, 480_000L, 960_000L);
		assertThat(intervals.indexOf(120_000L)).isEqualTo(3);
		assertThat(intervals.indexOf(240_000L)).isEqualTo(9);
		assertThat(intervals.indexOf(480_000L)).isEqualTo(21);
		assertThat(intervals.indexOf(960_000L)).isEqualTo(45);
	}

	@Test
	void aGrowingHeapKeepsTheShortestIntervalAndClosingLeavesIt() {
		this.periodic.look(500 * MIB);
		this.periodic.look(400 * MIB);
		assertThat(this.set).containsExactly(960_000L);
		for (int i = 1; i <= 10; i++) {
			assertThat(this.periodic.look((400 + i) * MIB)).isEqualTo(60_000);
		}
		this.periodic.look(300 * MIB);
		this.periodic.close();
		assertThat(this.set).containsExactly(960_000L, 60_000L, 960_000L, 60_000L);
	}

	@Test
	void aRefusedIntervalIsTriedAgainAtTheNextChange() {
		List<Long> accepted = new ArrayList<>();
		boolean[] refuse = { true };
		PeriodicCollections refusing = new PeriodicCollections(60_000, 960_000, (millis) -> {
			if (refuse[0]) {
				throw new IllegalArgumentException("refused");
			}
			accepted.add(millis);
		});
		refusing.look(500 * MIB);
		assertThat(refusing.look(400 * MIB)).as("still the shortest").isEqualTo(60_000);
		refuse[0] = false;
		assertThat(refusing.look(300 * MIB)).isEqualTo(960_000);
		assertThat(accepted).containsExactly(960_000L);
	}

}
