package dev.streamgate.diagnostics;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.netty.http.HttpResources;
import reactor.netty.resources.LoopResources;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.streamgate.core.egress.EgressGuard;
import dev.streamgate.core.egress.EgressProperties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@ExtendWith(OutputCaptureExtension.class)
class EventLoopWatchdogTests {

	@Test
	void aLoopBusyWithOneTaskTooLongIsLoggedWithWhatItRuns(CapturedOutput output) throws Exception {
		EventLoopWatchdog watchdog = new EventLoopWatchdog(Duration.ofMillis(300), List.of());
		watchdog.start();
		try {
			holdUntilLogged(serverLoop(), output, "busy with one task");
			assertThat(output.getAll()).contains("every connection it serves waits").contains("blockOn");
		}
		finally {
			watchdog.stop();
		}
	}

	@Test
	void aLoopOfOutgoingConnectionsBusyTooLongIsLoggedToo(CapturedOutput output) throws Exception {
		try (EgressGuard egress = new EgressGuard(new EgressProperties(List.of(), true))) {
			EventLoopWatchdog watchdog = new EventLoopWatchdog(Duration.ofMillis(300), List.of(egress.eventLoops()));
			watchdog.start();
			try {
				holdUntilLogged(egress.eventLoops().next(), output, "streamgate-egress");
				assertThat(output.getAll()).contains("busy with one task").contains("blockOn");
			}
			finally {
				watchdog.stop();
			}
		}
	}

	@Test
	void outgoingLoopsShutDownFirstLeaveTheServersWatched(CapturedOutput output) throws Exception {
		EgressGuard egress = new EgressGuard(new EgressProperties(List.of(), true));
		EventLoopGroup outgoing = egress.eventLoops();
		EventLoopWatchdog watchdog = new EventLoopWatchdog(Duration.ofMillis(300), List.of(outgoing));
		watchdog.start();
		try {
			// A node closing stops the loops of its outgoing connections before the
			// watch: a loop that takes no more tasks must not end the watch of the
			// others.
			egress.close();
			assertThat(outgoing.terminationFuture().await(20, TimeUnit.SECONDS)).isTrue();
			Thread.sleep(500);
			holdUntilLogged(serverLoop(), output, "busy with one task");
			assertThat(output.getAll()).doesNotContain("streamgate-egress");
		}
		finally {
			watchdog.stop();
		}
	}

	@Test
	void zeroTurnsTheWatchOff() {
		EventLoopWatchdog watchdog = new EventLoopWatchdog(Duration.ZERO, List.of());
		watchdog.start();
		assertThat(watchdog.isRunning()).isFalse();
	}

	private static EventExecutor serverLoop() {
		return HttpResources.get().onServer(LoopResources.DEFAULT_NATIVE).next();
	}

	/**
	 * Holds a loop with one task until the output says so, once the watchdog has had time
	 * to learn each loop's thread.
	 */
	private static void holdUntilLogged(EventExecutor loop, CapturedOutput output, String text) throws Exception {
		Thread.sleep(200);
		CountDownLatch release = new CountDownLatch(1);
		try {
			loop.execute(() -> blockOn(release));
			await().atMost(Duration.ofSeconds(10)).until(() -> output.getAll().contains(text));
		}
		finally {
			release.countDown();
		}
	}

	private static void blockOn(CountDownLatch release) {
		try {
			release.await(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
