package dev.streamgate.subscribe.webhook;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

import dev.streamgate.core.webhook.DeliveryState;
import dev.streamgate.storage.memory.MemoryDeliveryStates;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node's dispatchers commit together, in virtual time: once a second one batch of the
 * newest state of each webhook that reached one, nothing while none did, and a stopping
 * dispatcher's state at once. The store records each batch it is given.
 */
class DeliveryCommitsTests {

	private final VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();

	private final RecordingStates states = new RecordingStates();

	private final DeliveryCommits commits = new DeliveryCommits(this.states);

	@AfterEach
	void stop() {
		this.commits.stop();
		VirtualTimeScheduler.reset();
	}

	@Test
	void theNewestStateOfEachWebhookIsCommittedInOneBatchOnceASecond() {
		this.commits.start();
		for (int i = 0; i < 750; i++) {
			this.commits.offer("wh_" + i, state(1));
		}
		this.commits.offer("wh_0", state(2));
		this.commits.offer("wh_0", state(3));
		assertThat(this.states.batches).isEmpty();
		this.time.advanceTimeBy(DeliveryCommits.EVERY);
		assertThat(this.states.batches).hasSize(1);
		assertThat(this.states.batches.get(0)).hasSize(750).containsEntry("wh_0", state(3));
		assertThat(this.states.get("wh_0")).contains(state(3));
		assertThat(this.states.get("wh_749")).contains(state(1));
	}

	@Test
	void nothingIsSentWhileNoWebhookReachedAnotherState() {
		this.commits.start();
		this.commits.offer("wh_1", state(1));
		this.time.advanceTimeBy(DeliveryCommits.EVERY);
		this.time.advanceTimeBy(Duration.ofMinutes(10));
		assertThat(this.states.batches).hasSize(1);
		this.commits.offer("wh_1", state(2));
		this.time.advanceTimeBy(DeliveryCommits.EVERY);
		assertThat(this.states.batches).hasSize(2);
		assertThat(this.states.batches.get(1)).containsExactly(Map.entry("wh_1", state(2)));
	}

	@Test
	void aStoppingDispatchersStateIsCommittedWithoutWaitingForTheSecond() {
		this.commits.start();
		this.commits.offer("wh_1", state(1));
		this.commits.offerLast("wh_2", state(5));
		assertThat(this.states.batches).hasSize(1);
		assertThat(this.states.batches.get(0)).containsOnly(Map.entry("wh_1", state(1)), Map.entry("wh_2", state(5)));
	}

	@Test
	void aDeletedWebhooksStateIsNotCommitted() {
		this.commits.start();
		this.commits.offer("wh_1", state(1));
		this.commits.offer("wh_2", state(1));
		this.commits.forget("wh_2");
		this.time.advanceTimeBy(DeliveryCommits.EVERY);
		assertThat(this.states.batches).containsExactly(Map.of("wh_1", state(1)));
	}

	@Test
	void stoppingCommitsWhatWasHandedOver() {
		this.commits.start();
		this.commits.offer("wh_1", state(4));
		this.commits.stop();
		assertThat(this.states.get("wh_1")).contains(state(4));
		// Stopped: the ticks are gone.
		this.commits.offer("wh_1", state(5));
		this.time.advanceTimeBy(Duration.ofSeconds(5));
		assertThat(this.states.get("wh_1")).contains(state(4));
	}

	@Test
	void aFailedCommitIsDroppedAndTheNextStatesGoWithTheNextOne() {
		this.commits.start();
		this.states.failNext = true;
		this.commits.offer("wh_1", state(1));
		this.time.advanceTimeBy(DeliveryCommits.EVERY);
		assertThat(this.states.get("wh_1")).isEmpty();
		this.commits.offer("wh_1", state(2));
		this.time.advanceTimeBy(DeliveryCommits.EVERY);
		assertThat(this.states.get("wh_1")).contains(state(2));
	}

	private static DeliveryState state(long delivered) {
		return new DeliveryState(0, Long.toString(delivered - 1), false, null, delivered, 0);
	}

	/** Keeps the states as the memory store does, and each batch it was given. */
	private static final class RecordingStates extends MemoryDeliveryStates {

		private final List<Map<String, DeliveryState>> batches = new CopyOnWriteArrayList<>();

		private volatile boolean failNext;

		@Override
		public Mono<Void> saveAll(Map<String, DeliveryState> states) {
			if (this.failNext) {
				this.failNext = false;
				return Mono.error(new IllegalStateException("Kafka is away"));
			}
			this.batches.add(Map.copyOf(states));
			return super.saveAll(states);
		}

	}

}
