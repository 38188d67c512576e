package dev.streamgate.publish.poller;

import java.time.Duration;
import java.time.Instant;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When polls happen: each topic on its own phase of the period, never two polls of a
 * topic closer than a period.
 */
class PollerScheduleTests {

	private static final Duration PERIOD = Duration.ofMillis(500);

	private static final Instant START = Instant.parse("2026-11-25T12:00:00.123Z");

	@Test
	void topicsStartedTogetherPollSpreadOverThePeriod() {
		// 100 topics with ids that differ by one character, started in the same
		// millisecond, each poll taking 5 ms: where in the period does the second poll
		// of each fall?
		int[] buckets = new int[10];
		for (int i = 0; i < 100; i++) {
			Instant now = START.plusMillis(5);
			Instant second = now.plus(Poller.untilNextPoll("bench-" + i, PERIOD, START, now));
			buckets[(int) (second.toEpochMilli() % PERIOD.toMillis()) / 50]++;
		}
		// Evenly spread: 10 a tenth; all in one instant before.
		assertThat(IntStream.of(buckets).max().getAsInt()).as("the busiest tenth of the period")
			.isLessThanOrEqualTo(20);
		assertThat(IntStream.of(buckets).min().getAsInt()).as("the quietest tenth").isGreaterThanOrEqualTo(3);
	}

	@Test
	void pollsOfATopicAreAtLeastAPeriodApartAndThenExactlyAPeriod() {
		Instant started = START;
		Instant previous = null;
		for (int poll = 0; poll < 20; poll++) {
			Instant finished = started.plusMillis(7 + poll % 3);
			Instant next = finished.plus(Poller.untilNextPoll("orders", PERIOD, started, finished));
			Duration gap = Duration.between(started, next);
			assertThat(gap).as("poll %d", poll).isGreaterThanOrEqualTo(PERIOD).isLessThan(PERIOD.multipliedBy(2));
			if (previous != null) {
				assertThat(gap).as("on its phase from the second poll on").isEqualTo(PERIOD);
			}
			previous = started;
			started = next;
		}
	}

	@Test
	void aPollWhoseTimerFiredLateKeepsItsPhaseAndItsRate() {
		// The timer fires 0-30 ms late and a poll takes 5-40 ms: 200 periods give 200
		// polls, each started within 30 ms of the topic's phase.
		java.util.SplittableRandom jitter = new java.util.SplittableRandom(7);
		Instant phasePoint = START.plus(Poller.untilNextPoll("orders", PERIOD, START, START));
		Instant started = phasePoint.plusMillis(jitter.nextLong(30));
		for (int poll = 1; poll <= 200; poll++) {
			Instant finished = started.plusMillis(5 + jitter.nextLong(35));
			Instant due = finished.plus(Poller.untilNextPoll("orders", PERIOD, started, finished));
			assertThat(due).as("poll %d", poll).isEqualTo(phasePoint.plus(PERIOD.multipliedBy(poll)));
			started = due.plusMillis(jitter.nextLong(30));
		}
	}

	@Test
	void aPollLongerThanThePeriodIsFollowedAtOnceAndThenBackOnPhase() {
		Instant started = START;
		Instant finished = started.plus(PERIOD.multipliedBy(3));
		assertThat(Poller.untilNextPoll("orders", PERIOD, started, finished)).isZero();
		Instant next = finished;
		Instant nextFinished = next.plusMillis(5);
		Instant after = nextFinished.plus(Poller.untilNextPoll("orders", PERIOD, next, nextFinished));
		Instant onPhase = START.plus(Poller.untilNextPoll("orders", PERIOD, START, START));
		assertThat(Duration.between(onPhase, after).toMillis() % PERIOD.toMillis()).isZero();
	}

}
