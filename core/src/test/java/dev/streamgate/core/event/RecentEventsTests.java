package dev.streamgate.core.event;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The newest events a follower keeps: bounded in count and bytes, read either way.
 */
class RecentEventsTests {

	private static List<String> list(Iterable<String> items) {
		List<String> all = new ArrayList<>();
		items.forEach(all::add);
		return all;
	}

	@Test
	void theOldestGoFirstAndTheKeptReadInBothOrders() {
		MemoryBudget budget = new MemoryBudget(1_000);
		RecentEvents<String> recent = new RecentEvents<>(3, 1_000, budget, Cursor.beforeAll(1));
		for (int i = 0; i < 5; i++) {
			recent.add("e" + i, 10, Cursor.of(i));
		}
		assertThat(list(recent.items())).containsExactly("e2", "e3", "e4");
		assertThat(list(recent.newestFirst())).containsExactly("e4", "e3", "e2");
		assertThat(recent.start()).isEqualTo(Cursor.of(1));
		recent.clear();
		assertThat(list(recent.newestFirst())).isEmpty();
	}

}
