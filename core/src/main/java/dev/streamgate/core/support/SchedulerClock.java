package dev.streamgate.core.support;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;

import reactor.core.scheduler.Scheduler;

/**
 * A clock that reads a Reactor scheduler's time, so that code that both waits on a
 * scheduler and reads a clock sees one time. Tests give it a virtual-time scheduler: the
 * waits and the clock then advance together, hours in milliseconds.
 */
public final class SchedulerClock extends Clock {

	private final Scheduler scheduler;

	public SchedulerClock(Scheduler scheduler) {
		this.scheduler = scheduler;
	}

	@Override
	public ZoneId getZone() {
		return ZoneOffset.UTC;
	}

	@Override
	public Clock withZone(ZoneId zone) {
		return this;
	}

	@Override
	public Instant instant() {
		return Instant.ofEpochMilli(this.scheduler.now(TimeUnit.MILLISECONDS));
	}

}
