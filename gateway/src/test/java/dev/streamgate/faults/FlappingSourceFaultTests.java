package dev.streamgate.faults;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.codec.ServerSentEvent;
import reactor.core.Disposable;

import dev.streamgate.bench.source.MockDocument;
import dev.streamgate.bench.source.MockSourceApi;
import dev.streamgate.support.BrokerProcess;
import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.Sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A polled source that flaps for minutes between errors, timeouts, garbage, huge bodies,
 * redirect loops and short good spells. The topic's subscribers are told of each failure
 * with a {@code problem} event, the topic streams again once the source is back, and the
 * gateway's heap after a full GC ends where it started.
 */
@Tag("faults")
class FlappingSourceFaultTests {

	private static final List<String> FAULTS = List.of("status:500", "slow:4000", "garbage", "huge:200000000",
			"status:404", "redirect-loop", "none", "status:503", "huge:5000000", "garbage", "none");

	private static final Pattern HEAP_USED = Pattern
		.compile("(?m)^jvm_memory_used_bytes\\{[^}]*area=\"heap\"[^}]*} ([0-9.E+-]+)$");

	@Test
	void aFlappingSourceStreamsAgainAndLeavesNoMemoryBehind(@TempDir Path dir) throws Exception {
		Duration flapping = Duration.ofSeconds(Accounts.full() ? 300 : 40);
		Duration spell = Duration.ofSeconds(Accounts.full() ? 5 : 2);
		try (BrokerProcess broker = BrokerProcess.start(dir.resolve("kafka"), dir.resolve("broker.log"));
				MockSourceApi source = MockSourceApi.start(MockSourceApi.Settings.forTests());
				GatewayProcess gateway = GatewayProcess.startReady(dir.resolve("gateway.log"),
						GatewayCrashFaultTests.withBroker(new String[] { "--streamgate.security.enabled=false",
								"--streamgate.egress.allowed-cidrs=127.0.0.1/32" }, broker))) {
			String url = gateway.baseUrl();
			Faults.post(url, "/api/v1/topics",
					"{\"id\":\"flap\",\"payloadType\":\"snapshot\",\"publisher\":{"
							+ "\"type\":\"http-poller\",\"url\":\"" + source.url("flap?size=20000") + "\","
							+ "\"pollingPeriod\":\"PT0.5S\",\"timeout\":\"PT2S\",\"retry\":{\"maxAttempts\":2,"
							+ "\"initialBackoff\":\"PT0.2S\",\"maxBackoff\":\"PT0.5S\"}}}");
			MockDocument document = source.document("flap");
			List<ServerSentEvent<String>> events = new CopyOnWriteArrayList<>();
			Disposable subscriber = new Sse(url).stream("/api/v1/stream/flap", null).subscribe(events::add);
			await().atMost(Duration.ofSeconds(30)).until(() -> events.size() >= 3);

			flap(document, spell, spell.multipliedBy(FAULTS.size()));
			double baseline = heapAfterGc(gateway);
			long rssBaseline = rssKiB(gateway);
			flap(document, spell, flapping);
			document.fault("none");
			double after = heapAfterGc(gateway);
			long rssAfter = rssKiB(gateway);

			int seen = events.size();
			await("streams again").atMost(Duration.ofSeconds(30))
				.until(() -> events.stream().skip(seen).filter((e) -> "patch".equals(e.event())).count() >= 3);
			subscriber.dispose();
			assertThat(events).as("failures reach subscribers as problem events")
				.anySatisfy((event) -> assertThat(event.event()).isEqualTo("problem"));
			assertThat(gateway.readinessStatus()).isEqualTo(200);
			assertThat(after - baseline).as("heap growth after GC, bytes").isLessThan(32 * 1024 * 1024);
			System.out
				.printf("Flapping source for %d s (%d-s spells of %s): %d events streamed incl. %d problem events; "
						+ "heap after full GC %.1f MiB -> %.1f MiB, RSS %d MiB -> %d MiB; streaming again at once%n",
						flapping.toSeconds(), spell.toSeconds(), FAULTS, events.size(),
						events.stream().filter((e) -> "problem".equals(e.event())).count(), baseline / 1048576,
						after / 1048576, rssBaseline / 1024, rssAfter / 1024);
		}
	}

	private static void flap(MockDocument document, Duration spell, Duration total) throws InterruptedException {
		long end = System.nanoTime() + total.toNanos();
		for (int i = 0; System.nanoTime() < end; i++) {
			document.fault(FAULTS.get(i % FAULTS.size()));
			Thread.sleep(spell.toMillis());
		}
	}

	static double heapAfterGc(GatewayProcess gateway) throws IOException, InterruptedException {
		Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
				Long.toString(gateway.pid()), "GC.run")
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		assertThat(jcmd.waitFor()).isZero();
		String metrics = Faults.prometheus(gateway.baseUrl());
		double used = 0;
		Matcher heap = HEAP_USED.matcher(metrics);
		while (heap.find()) {
			used += Double.parseDouble(heap.group(1));
		}
		assertThat(used).isPositive();
		return used;
	}

	static long rssKiB(GatewayProcess gateway) throws IOException {
		for (String line : java.nio.file.Files.readAllLines(Path.of("/proc", Long.toString(gateway.pid()), "status"))) {
			if (line.startsWith("VmRSS:")) {
				return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
			}
		}
		return -1;
	}

}
