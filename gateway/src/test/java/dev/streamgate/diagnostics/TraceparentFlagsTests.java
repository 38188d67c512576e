package dev.streamgate.diagnostics;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sampled flag of a W3C {@code traceparent}, which decides whether an event's fan-out
 * and delivery get spans of their own.
 */
class TraceparentFlagsTests {

	@Test
	void theLowestBitOfTheFlagsIsTheSampledFlag() {
		assertThat(MicrometerEventTracing.sampled("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).isTrue();
		assertThat(MicrometerEventTracing.sampled("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")).isFalse();
		assertThat(MicrometerEventTracing.sampled("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03")).isTrue();
		assertThat(MicrometerEventTracing.sampled("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-fe")).isFalse();
	}

	@Test
	void aTraceparentThatCannotBeReadCountsAsSampled() {
		assertThat(MicrometerEventTracing.sampled("")).isTrue();
		assertThat(MicrometerEventTracing.sampled("garbage")).isTrue();
		assertThat(MicrometerEventTracing.sampled("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0")).isTrue();
		assertThat(MicrometerEventTracing.sampled("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-zz")).isTrue();
	}

}
