package dev.streamgate.subscribe.follow;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import static org.assertj.core.api.Assertions.assertThat;

class WaitersTests {

	private final Waiters waiters = new Waiters();

	private MonoSink<Void> waiting() {
		List<MonoSink<Void>> sink = new ArrayList<>();
		Mono.<Void>create(sink::add).subscribe();
		this.waiters.add(sink.get(0));
		return sink.get(0);
	}

	@Test
	void aRecheckWakesOnlyReadersThatWaitedThroughThePreviousOne() {
		MonoSink<Void> first = waiting();
		assertThat(this.waiters.recheck()).isEmpty();
		MonoSink<Void> second = waiting();
		assertThat(this.waiters.recheck()).containsExactly(first);
		assertThat(this.waiters.size()).isOne();
		assertThat(this.waiters.recheck()).containsExactly(second);
		assertThat(this.waiters.size()).isZero();
	}

	@Test
	void anEventWakesBothGenerationsAndAReaderThatLeftIsNotWoken() {
		MonoSink<Void> older = waiting();
		this.waiters.recheck();
		MonoSink<Void> younger = waiting();
		MonoSink<Void> gone = waiting();
		this.waiters.remove(gone);
		assertThat(this.waiters.takeAll()).containsExactlyInAnyOrder(older, younger);
		assertThat(this.waiters.takeAll()).isEmpty();
		assertThat(this.waiters.size()).isZero();
	}

}
