package dev.streamgate.publish.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class InFlightPublicationsTests {

	@Test
	void admitsUpToTheLimitAndAgainOnceReleased() {
		InFlightPublications inFlight = new InFlightPublications(100);
		assertThat(inFlight.tryAcquire(60)).isTrue();
		assertThat(inFlight.tryAcquire(40)).isTrue();
		assertThat(inFlight.tryAcquire(1)).isFalse();
		assertThat(inFlight.held()).isEqualTo(100);
		inFlight.release(40);
		assertThat(inFlight.tryAcquire(41)).isFalse();
		assertThat(inFlight.tryAcquire(40)).isTrue();
	}

	@Test
	void admitsAPublicationLargerThanTheLimitWhenNothingElseIsHeld() {
		InFlightPublications inFlight = new InFlightPublications(100);
		assertThat(inFlight.tryAcquire(500)).isTrue();
		assertThat(inFlight.tryAcquire(1)).isFalse();
		inFlight.release(500);
		assertThat(inFlight.held()).isZero();
		assertThat(inFlight.tryAcquire(1)).isTrue();
	}

	@Test
	void concurrentCallersNeverHoldMoreThanTheLimit() throws InterruptedException {
		InFlightPublications inFlight = new InFlightPublications(1_000);
		AtomicLong highest = new AtomicLong();
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < 8; t++) {
			Thread thread = new Thread(() -> {
				try {
					start.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				for (int i = 0; i < 20_000; i++) {
					if (inFlight.tryAcquire(300)) {
						highest.accumulateAndGet(inFlight.held(), Math::max);
						inFlight.release(300);
					}
				}
			});
			thread.start();
			threads.add(thread);
		}
		start.countDown();
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(highest.get()).isBetween(300L, 900L);
		assertThat(inFlight.held()).isZero();
	}

	@Test
	void refusesANonPositiveLimit() {
		assertThatIllegalArgumentException().isThrownBy(() -> new InFlightPublications(0));
	}

}
