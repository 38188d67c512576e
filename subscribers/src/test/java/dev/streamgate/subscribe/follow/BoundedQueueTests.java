package dev.streamgate.subscribe.follow;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class BoundedQueueTests {

	@Test
	void holdsItsCapacityInOrderAcrossItsArraysAndRefusesOneMore() {
		BoundedQueue<Integer> queue = new BoundedQueue<>(20);
		for (int i = 0; i < 20; i++) {
			assertThat(queue.offer(i)).isTrue();
		}
		assertThat(queue.offer(20)).isFalse();
		assertThat(queue.size()).isEqualTo(20);
		assertThat(queue.peek()).isEqualTo(0);
		List<Integer> polled = new ArrayList<>();
		for (Integer item = queue.poll(); item != null; item = queue.poll()) {
			polled.add(item);
		}
		assertThat(polled).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19);
		assertThat(queue.isEmpty()).isTrue();
		assertThat(queue.size()).isEqualTo(0);
		assertThat(queue.offer(21)).isTrue();
		assertThat(queue.poll()).isEqualTo(21);
	}

	@Test
	void aPolledItemMakesRoomForOneMore() {
		BoundedQueue<String> queue = new BoundedQueue<>(2);
		assertThat(queue.offer("a")).isTrue();
		assertThat(queue.offer("b")).isTrue();
		assertThat(queue.offer("c")).isFalse();
		assertThat(queue.poll()).isEqualTo("a");
		assertThat(queue.offer("c")).isTrue();
		assertThat(queue.offer("d")).isFalse();
		assertThat(queue.poll()).isEqualTo("b");
		assertThat(queue.poll()).isEqualTo("c");
		assertThat(queue.poll()).isNull();
	}

	@Test
	void clearingEmptiesItAndGivesBackItsRoom() {
		BoundedQueue<String> queue = new BoundedQueue<>(3);
		queue.offer("a");
		queue.offer("b");
		queue.clear();
		assertThat(queue.isEmpty()).isTrue();
		assertThat(queue.offer("c")).isTrue();
		assertThat(queue.offer("d")).isTrue();
		assertThat(queue.offer("e")).isTrue();
		assertThat(queue.offer("f")).isFalse();
	}

	@Test
	void aCapacityUnderOneIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new BoundedQueue<>(0));
	}

	@Test
	void aUnicastSinkOverItOverflowsAtItsCapacityAndDeliversWhatItHeld() {
		Sinks.Many<Integer> sink = Sinks.many().unicast().onBackpressureBuffer(new BoundedQueue<>(3));
		StepVerifier.create(sink.asFlux(), 0).then(() -> {
			assertThat(sink.tryEmitNext(1)).isEqualTo(Sinks.EmitResult.OK);
			assertThat(sink.tryEmitNext(2)).isEqualTo(Sinks.EmitResult.OK);
			assertThat(sink.tryEmitNext(3)).isEqualTo(Sinks.EmitResult.OK);
			assertThat(sink.tryEmitNext(4)).isEqualTo(Sinks.EmitResult.FAIL_OVERFLOW);
		})
			.thenRequest(2)
			.expectNext(1, 2)
			.then(() -> assertThat(sink.tryEmitNext(5)).isEqualTo(Sinks.EmitResult.OK))
			.thenRequest(10)
			.expectNext(3, 5)
			.then(sink::tryEmitComplete)
			.expectComplete()
			.verify(Duration.ofSeconds(5));
	}

	@Test
	void oneProducerAndOneConsumerOnTwoThreadsPassEveryItemInOrderWithinTheBound() throws Exception {
		int items = 1_000_000;
		int capacity = 64;
		BoundedQueue<Integer> queue = new BoundedQueue<>(capacity);
		AtomicInteger largest = new AtomicInteger();
		CompletableFuture<Integer> refused = CompletableFuture.supplyAsync(() -> {
			int refusals = 0;
			for (int i = 0; i < items;) {
				if (queue.offer(i)) {
					i++;
				}
				else {
					refusals++;
					Thread.onSpinWait();
				}
				largest.accumulateAndGet(queue.size(), Math::max);
			}
			return refusals;
		});
		int expected = 0;
		while (expected < items) {
			Integer item = queue.poll();
			if (item == null) {
				Thread.onSpinWait();
				continue;
			}
			assertThat(item).isEqualTo(expected);
			expected++;
		}
		refused.get(30, TimeUnit.SECONDS);
		assertThat(queue.poll()).isNull();
		assertThat(largest.get()).isLessThanOrEqualTo(capacity);
	}

}
