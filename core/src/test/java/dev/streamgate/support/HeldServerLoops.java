package dev.streamgate.support;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.netty.util.concurrent.EventExecutor;
import reactor.netty.http.HttpResources;
import reactor.netty.resources.LoopResources;

/**
 * Holds every event loop that serves the node's HTTP requests (Reactor Netty's global
 * server loops) with a task, as a node flooded with publications holds them, until
 * closed; a held loop runs nothing else, and gives itself back after 30 s at most.
 */
public final class HeldServerLoops implements AutoCloseable {

	private final CountDownLatch release = new CountDownLatch(1);

	private HeldServerLoops() {
		for (EventExecutor loop : HttpResources.get().onServer(LoopResources.DEFAULT_NATIVE)) {
			loop.execute(this::holdUntilReleased);
		}
	}

	/**
	 * Holds them.
	 * @return the hold, to close
	 */
	public static HeldServerLoops hold() {
		return new HeldServerLoops();
	}

	private void holdUntilReleased() {
		try {
			this.release.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void close() {
		this.release.countDown();
	}

}
