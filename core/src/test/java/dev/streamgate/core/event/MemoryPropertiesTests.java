package dev.streamgate.core.event;

import org.junit.jupiter.api.Test;

import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;

class MemoryPropertiesTests {

	@Test
	void theDefaultBudgetIsAnEighthOfTheHeapAtMost384MiB() {
		long expected = Math.min(Runtime.getRuntime().maxMemory() / 8, 384L * 1024 * 1024);
		assertThat(new MemoryProperties(null, DataSize.ofMegabytes(8), null, DataSize.ofMegabytes(64), null)
			.recentEventsBytes()).isEqualTo(expected).isLessThanOrEqualTo(384L * 1024 * 1024);
	}

	@Test
	void aConfiguredBudgetIsTakenAsItIs() {
		assertThat(new MemoryProperties(DataSize.ofGigabytes(1), DataSize.ofMegabytes(8), null,
				DataSize.ofMegabytes(64), null)
			.recentEventsBytes()).isEqualTo(DataSize.ofGigabytes(1).toBytes());
	}

}
