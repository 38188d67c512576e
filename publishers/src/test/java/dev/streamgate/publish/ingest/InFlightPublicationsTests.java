package dev.streamgate.publish.ingest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class InFlightPublicationsTests {

	private static final Duration WAIT = Duration.ofSeconds(5);

	private final List<String> started = new CopyOnWriteArrayList<>();

	@AfterEach
	void resetTime() {
		VirtualTimeScheduler.reset();
	}

	@Test
	void holdsUpToTheLimitThenAdmitsWaitersInOrderOfArrivalAsBytesAreReleased() {
		InFlightPublications inFlight = new InFlightPublications(100, WAIT);
		Publication a = hold(inFlight, "a", 60);
		Publication b = hold(inFlight, "b", 40);
		Publication c = hold(inFlight, "c", 30);
		Publication d = hold(inFlight, "d", 10);
		assertThat(this.started).containsExactly("a", "b");
		assertThat(inFlight.held()).isEqualTo(100);
		assertThat(inFlight.waiting()).isEqualTo(40);
		a.finish();
		assertThat(a.answer.get()).isEqualTo("a");
		assertThat(this.started).containsExactly("a", "b", "c", "d");
		assertThat(inFlight.held()).isEqualTo(80);
		assertThat(inFlight.waiting()).isZero();
		b.finish();
		c.finish();
		d.finish();
		assertThat(List.of(b.answer.get(), c.answer.get(), d.answer.get())).containsExactly("b", "c", "d");
		assertThat(inFlight.held()).isZero();
	}

	@Test
	void aWaiterDoesNotOvertakeTheOneAheadOfItEvenWhenItWouldFit() {
		InFlightPublications inFlight = new InFlightPublications(100, WAIT);
		Publication a = hold(inFlight, "a", 90);
		hold(inFlight, "big", 50);
		hold(inFlight, "small", 5);
		assertThat(this.started).containsExactly("a");
		a.finish();
		assertThat(this.started).containsExactly("a", "big", "small");
	}

	@Test
	void aPublicationThatFindsNoRoomWithinTheWaitIsRefusedAndLeavesNothingBehind() {
		VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
		InFlightPublications inFlight = new InFlightPublications(100, WAIT);
		Publication a = hold(inFlight, "a", 100);
		Publication late = hold(inFlight, "late", 10);
		time.advanceTimeBy(WAIT.minusMillis(1));
		assertThat(late.error.get()).isNull();
		assertThat(inFlight.waiting()).isEqualTo(10);
		time.advanceTimeBy(Duration.ofMillis(1));
		assertThat(late.error.get()).isInstanceOfSatisfying(InFlightPublications.Refused.class,
				(refused) -> assertThat(refused.waited()).isTrue());
		assertThat(inFlight.waiting()).isZero();
		a.finish();
		assertThat(this.started).containsExactly("a");
		assertThat(inFlight.held()).isZero();
	}

	@Test
	void asManyBytesMayWaitAsMayBeHeldAndMoreAreRefusedAtOnce() {
		InFlightPublications inFlight = new InFlightPublications(100, WAIT);
		hold(inFlight, "a", 100);
		Publication first = hold(inFlight, "first", 60);
		Publication tooMany = hold(inFlight, "too-many", 50);
		Publication last = hold(inFlight, "last", 40);
		assertThat(tooMany.error.get()).isInstanceOfSatisfying(InFlightPublications.Refused.class,
				(refused) -> assertThat(refused.waited()).isFalse());
		assertThat(first.error.get()).isNull();
		assertThat(last.error.get()).isNull();
		assertThat(inFlight.waiting()).isEqualTo(100);
	}

	@Test
	void withoutAWaitAPublicationBeyondTheLimitIsRefusedAtOnce() {
		InFlightPublications inFlight = new InFlightPublications(100, Duration.ZERO);
		hold(inFlight, "a", 100);
		Publication refused = hold(inFlight, "b", 1);
		assertThat(refused.error.get()).isInstanceOf(InFlightPublications.Refused.class);
		assertThat(inFlight.waiting()).isZero();
	}

	@Test
	void aPublicationLargerThanTheLimitIsHeldWhenNothingElseIs() {
		InFlightPublications inFlight = new InFlightPublications(100, WAIT);
		Publication large = hold(inFlight, "large", 500);
		Publication next = hold(inFlight, "next", 1);
		assertThat(this.started).containsExactly("large");
		large.finish();
		assertThat(this.started).containsExactly("large", "next");
		next.finish();
		assertThat(inFlight.held()).isZero();
		Publication alone = hold(inFlight, "alone", 500);
		assertThat(alone.error.get()).isNull();
		assertThat(this.started).endsWith("alone");
	}

	@Test
	void aRequestThatGoesAwayReleasesItsBytesWhetherItWaitedOrWasHeld() {
		InFlightPublications inFlight = new InFlightPublications(100, WAIT);
		Publication a = hold(inFlight, "a", 100);
		Publication waiting = hold(inFlight, "waiting", 30);
		waiting.subscription.dispose();
		assertThat(inFlight.waiting()).isZero();
		a.subscription.dispose();
		assertThat(inFlight.held()).isZero();
		assertThat(this.started).containsExactly("a");
	}

	@Test
	void aPublicationThatFailsReleasesItsBytes() {
		InFlightPublications inFlight = new InFlightPublications(100, WAIT);
		Publication a = hold(inFlight, "a", 100);
		Publication b = hold(inFlight, "b", 100);
		a.work.tryEmitError(new IllegalStateException("Kafka said no"));
		assertThat(a.error.get()).hasMessage("Kafka said no");
		assertThat(this.started).containsExactly("a", "b");
		b.finish();
		assertThat(inFlight.held()).isZero();
	}

	@Test
	void concurrentPublicationsNeverHoldMoreThanTheLimitAndAllEndAdmittedOrRefused() throws InterruptedException {
		InFlightPublications inFlight = new InFlightPublications(1_000, Duration.ofSeconds(30));
		AtomicLong highest = new AtomicLong();
		AtomicInteger admitted = new AtomicInteger();
		AtomicInteger refused = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> threads = new ArrayList<>();
		int perThread = 2_000;
		for (int t = 0; t < 8; t++) {
			Thread thread = new Thread(() -> {
				try {
					start.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				for (int i = 0; i < perThread; i++) {
					try {
						inFlight.hold(300, () -> Mono.fromCallable(() -> {
							highest.accumulateAndGet(inFlight.held(), Math::max);
							return admitted.incrementAndGet();
						})).block(Duration.ofSeconds(30));
					}
					catch (InFlightPublications.Refused ex) {
						refused.incrementAndGet();
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
		assertThat(admitted.get() + refused.get()).isEqualTo(8 * perThread);
		assertThat(admitted.get()).isPositive();
		assertThat(highest.get()).isBetween(300L, 900L);
		assertThat(inFlight.held()).isZero();
		assertThat(inFlight.waiting()).isZero();
	}

	@Test
	void refusesANonPositiveLimitAndANegativeWait() {
		assertThatIllegalArgumentException().isThrownBy(() -> new InFlightPublications(0, WAIT));
		assertThatIllegalArgumentException().isThrownBy(() -> new InFlightPublications(1, Duration.ofMillis(-1)));
	}

	/** A publication whose work ends when the test says so. */
	private Publication hold(InFlightPublications inFlight, String name, long bytes) {
		Publication publication = new Publication(name);
		publication.subscription = inFlight.hold(bytes, () -> {
			this.started.add(name);
			return publication.work.asMono();
		}).subscribe(publication.answer::set, publication.error::set);
		return publication;
	}

	private static final class Publication {

		private final String name;

		private final Sinks.One<String> work = Sinks.one();

		private final AtomicReference<String> answer = new AtomicReference<>();

		private final AtomicReference<Throwable> error = new AtomicReference<>();

		private Disposable subscription;

		private Publication(String name) {
			this.name = name;
		}

		void finish() {
			this.work.tryEmitValue(this.name);
		}

	}

}
