package dev.streamgate.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.streamgate.support.BrokerProcess;
import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.Sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Thousands of SSE clients connect and go away (after the first event, straight after the
 * headers, or resuming from an id), 50 at a time, while events are published. After them
 * the gateway holds no stream, and its open file descriptors, threads and heap after a
 * full GC are back at their baseline: no connection, buffer or consumer leaked.
 */
@Tag("faults")
class ConnectionChurnFaultTests {

	@Test
	void connectDisconnectCyclesLeakNothing(@TempDir Path dir) throws Exception {
		int cycles = Accounts.full() ? 10_000 : 2_000;
		try (BrokerProcess broker = BrokerProcess.start(dir.resolve("kafka"), dir.resolve("broker.log"));
				GatewayProcess gateway = GatewayProcess.startReady(dir.resolve("gateway.log"),
						GatewayCrashFaultTests.withBroker(new String[] { "--streamgate.security.enabled=false",
								"--streamgate.sse.max-streams-per-client=1000" }, broker))) {
			String url = gateway.baseUrl();
			Faults.post(url, "/api/v1/topics",
					"{\"id\":\"churn\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}");
			try (SteadyPublisher publisher = new SteadyPublisher(url, "churn", Duration.ofMillis(100))) {
				Sse sse = new Sse(url);
				// Warm up: the same kinds of cycles, so that pools and caches reach their
				// size.
				run(sse, 500);
				Thread.sleep(2000);
				double heapBefore = FlappingSourceFaultTests.heapAfterGc(gateway);
				long fdsBefore = fds(gateway);
				Map<String, Long> fdKindsBefore = fdKinds(gateway);
				long threadsBefore = threads(gateway);

				AtomicInteger completed = run(sse, cycles);

				// Apart, so that a timeout says which one and the value it saw last.
				await("no stream left open").atMost(Duration.ofSeconds(30))
					.until(() -> clients(url), org.hamcrest.Matchers.equalTo(0));
				// Kept read consumers idle for 10 s are closed (ReadConsumers): a burst
				// of
				// replays may leave more than the warm-up did, for that long.
				await("file descriptors back to " + fdsBefore + " + 10").atMost(Duration.ofSeconds(30))
					.untilAsserted(() -> assertThat(fds(gateway))
						.as(() -> "open file descriptors by kind: before " + fdKindsBefore + ", now "
								+ fdKinds(gateway))
						.isLessThanOrEqualTo(fdsBefore + 10));
				double heapAfter = FlappingSourceFaultTests.heapAfterGc(gateway);
				long fdsAfter = fds(gateway);
				long threadsAfter = threads(gateway);
				assertThat(completed.get()).isEqualTo(cycles);
				assertThat(publisher.unexpected()).isEmpty();
				assertThat(fdsAfter).as("open file descriptors").isLessThanOrEqualTo(fdsBefore + 10);
				assertThat(threadsAfter).as("threads").isLessThanOrEqualTo(threadsBefore + 5);
				assertThat(heapAfter - heapBefore).as("heap growth after GC, bytes").isLessThan(16 * 1024 * 1024);
				assertThat(gateway.readinessStatus()).isEqualTo(200);
				System.out.printf(
						"%d SSE connect/disconnect cycles: open fds %d -> %d (%s -> %s), threads %d -> %d, heap after full GC "
								+ "%.1f MiB -> %.1f MiB, streams open afterwards 0%n",
						cycles, fdsBefore, fdsAfter, fdKindsBefore, fdKinds(gateway), threadsBefore, threadsAfter,
						heapBefore / 1048576, heapAfter / 1048576);
			}
		}
	}

	private static AtomicInteger run(Sse sse, int cycles) {
		AtomicInteger completed = new AtomicInteger();
		Flux.range(0, cycles).flatMap((i) -> {
			Mono<?> cycle = switch (i % 3) {
				// leaves after the first event
				case 0 -> sse.stream("/api/v1/stream/churn", null).next();
				// leaves as soon as the stream is open (its retry line)
				case 1 -> sse.all("/api/v1/stream/churn", null).next();
				// replays from the earliest retained event and leaves after a few
				default -> sse.stream("/api/v1/stream/churn?lastEventId=earliest", null).take(3).last();
			};
			return cycle.timeout(Duration.ofSeconds(20)).doOnSuccess((ok) -> completed.incrementAndGet());
		}, 50).blockLast(Duration.ofMinutes(10));
		return completed;
	}

	private static int clients(String url) {
		return Faults.prometheus(url)
			.lines()
			.filter((line) -> line.startsWith("streamgate_sse_clients{"))
			.mapToInt((line) -> (int) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
			.sum();
	}

	private static long fds(GatewayProcess gateway) throws IOException {
		try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(gateway.pid()), "fd"))) {
			return fds.count();
		}
	}

	/** The gateway's open file descriptors by kind (socket, eventpoll, file...). */
	private static Map<String, Long> fdKinds(GatewayProcess gateway) {
		try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(gateway.pid()), "fd"))) {
			return fds.map(ConnectionChurnFaultTests::kind)
				.collect(Collectors.groupingBy((kind) -> kind, TreeMap::new, Collectors.counting()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String kind(Path fd) {
		try {
			String target = Files.readSymbolicLink(fd).toString();
			if (target.startsWith("/")) {
				return "file";
			}
			// anon_inode:[eventpoll] is an eventpoll, socket:[4711] a socket
			String kind = target.startsWith("anon_inode:") ? target.substring("anon_inode:".length()) : target;
			int id = kind.indexOf(":[");
			return (id > 0) ? kind.substring(0, id) : kind;
		}
		catch (IOException ex) {
			// closed since it was listed
			return "gone";
		}
	}

	private static long threads(GatewayProcess gateway) throws IOException {
		try (Stream<String> lines = Files.lines(Path.of("/proc", Long.toString(gateway.pid()), "status"))) {
			return lines.filter((line) -> line.startsWith("Threads:"))
				.mapToLong((line) -> Long.parseLong(line.substring(8).trim()))
				.sum();
		}
	}

}
