package dev.streamgate.diagnostics;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.sun.management.HotSpotDiagnosticMXBean;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JVM settings that let an idle node give its heap back, each in a JVM of its own (a
 * setting, once changed, is no longer at its default in that JVM).
 */
class IdleHeapReturnTests {

	@Test
	void anIdleG1HeapGoesBackToTheSystem() throws Exception {
		List<String> out = run("-XX:+UseG1GC", "-Xms64m", "-Xmx2g", "--", "1s", "20", "shrink");
		assertThat(out).contains("changed={MinHeapFreeRatio=10, MaxHeapFreeRatio=20, G1PeriodicGCInterval=1000}");
		long full = value(out, "committed with 600 MiB live");
		long idle = value(out, "committed when idle");
		assertThat(full).isGreaterThanOrEqualTo(600L << 20);
		assertThat(idle).as("committed heap %d MiB, after being idle, of %d", idle >> 20, full >> 20)
			.isLessThan(full / 4);
	}

	@Test
	void periodicCollectionsSpaceOutOnceTheHeapIsGivenBackAndComeBackWhenItGrows() throws Exception {
		List<String> out = run("-XX:+UseG1GC", "-Xms64m", "-Xmx2g", "--", "1s", "20", "watch");
		long full = value(out, "committed with 600 MiB live");
		assertThat(value(out, "spaced out with committed")).as("heap given back first").isLessThan(full / 4);
		assertThat(value(out, "back with committed")).isGreaterThanOrEqualTo(600L << 20);
		assertThat(value(out, "spaced out again with committed")).as("heap given back after the second load")
			.isLessThan(full / 4);
		assertThat(value(out, "G1PeriodicGCInterval after close")).isEqualTo(1000);
	}

	@Test
	void settingsGivenToTheJvmAreKept() throws Exception {
		assertThat(run("-XX:+UseG1GC", "-XX:MaxHeapFreeRatio=50", "--", "60s", "20"))
			.contains("changed={G1PeriodicGCInterval=60000}", "MaxHeapFreeRatio=50");
		assertThat(run("-XX:+UseG1GC", "-XX:G1PeriodicGCInterval=5000", "--", "60s", "30"))
			.contains("changed={MinHeapFreeRatio=15, MaxHeapFreeRatio=30}", "G1PeriodicGCInterval=5000");
	}

	@Test
	void nothingChangesWhenTurnedOffOrWithAnotherCollector() throws Exception {
		assertThat(run("-XX:+UseG1GC", "--", "0s", "20")).contains("changed={}", "MaxHeapFreeRatio=70");
		assertThat(run("-XX:+UseSerialGC", "--", "60s", "20")).contains("changed={}", "MaxHeapFreeRatio=70");
	}

	private static long value(List<String> out, String name) {
		return out.stream()
			.filter((line) -> line.startsWith(name + "="))
			.map((line) -> Long.parseLong(line.substring(name.length() + 1).split(" ")[0]))
			.findFirst()
			.orElseThrow(() -> new AssertionError(name + " not in " + out));
	}

	/** Runs {@link #main} in a new JVM with the given options before {@code --}. */
	private static List<String> run(String... args) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		int split = List.of(args).indexOf("--");
		command.addAll(List.of(args).subList(0, split));
		command.addAll(List.of("-cp", System.getProperty("java.class.path"), IdleHeapReturnTests.class.getName()));
		command.addAll(List.of(args).subList(split + 1, args.length));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		assertThat(process.waitFor(150, TimeUnit.SECONDS)).isTrue();
		List<String> out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
		assertThat(process.exitValue()).as(String.join("\n", out)).isZero();
		return out;
	}

	/**
	 * Applies the settings and prints what changed and the resulting values; with
	 * {@code shrink}, also the committed heap with 600 MiB live and after a while idle;
	 * with {@code watch}, the committed heap whenever the periodic collections' interval
	 * changed, over two loads.
	 * @param args the idle time, the free share, and optionally {@code shrink} or
	 * {@code watch}
	 * @throws InterruptedException when interrupted
	 */
	public static void main(String[] args) throws InterruptedException {
		Map<String, String> changed = IdleHeapReturn.apply(new JvmProperties(
				Duration.parse("PT" + args[0].toUpperCase()), Duration.ofSeconds(8), Integer.parseInt(args[1])));
		System.out.println("changed=" + changed);
		HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
		for (String name : List.of("MinHeapFreeRatio", "MaxHeapFreeRatio", "G1PeriodicGCInterval")) {
			System.out.println(name + "=" + vm.getVMOption(name).getValue());
		}
		if (args.length > 2 && args[2].equals("shrink")) {
			loadAndDrop();
			long committed = Long.MAX_VALUE;
			for (int i = 0; i < 100 && committed > (64L << 20); i++) {
				Thread.sleep(200);
				committed = committed();
			}
			System.out.println("committed when idle=" + committed);
		}
		if (args.length > 2 && args[2].equals("watch")) {
			try (PeriodicCollections watch = PeriodicCollections.watch(1000, 8000)) {
				long full = loadAndDrop();
				await(vm, "8000");
				System.out.println("spaced out with committed=" + givenBack(full));
				List<byte[]> live = load();
				System.out.println("back with committed=" + await(vm, "1000") + " (" + live.size() + ")");
				live = null;
				await(vm, "8000");
				System.out.println("spaced out again with committed=" + givenBack(full));
			}
			System.out.println("G1PeriodicGCInterval after close=" + vm.getVMOption("G1PeriodicGCInterval").getValue());
		}
	}

	/**
	 * Waits (at most 30 s) for the periodic collections' interval to be the one given.
	 */
	private static long await(HotSpotDiagnosticMXBean vm, String interval) throws InterruptedException {
		for (int i = 0; i < 150 && !vm.getVMOption("G1PeriodicGCInterval").getValue().equals(interval); i++) {
			Thread.sleep(200);
		}
		String now = vm.getVMOption("G1PeriodicGCInterval").getValue();
		if (!now.equals(interval)) {
			throw new IllegalStateException("G1PeriodicGCInterval is " + now + ", not " + interval);
		}
		return committed();
	}

	private static long loadAndDrop() {
		List<byte[]> live = load();
		long committed = committed();
		System.out.println("committed with 600 MiB live=" + committed + " (" + live.size() + ")");
		return committed;
	}

	/**
	 * The committed heap once it is under a quarter of the given one, or after 30 s. A
	 * busy machine (CI runs two test JVMs at once) may give the heap back in two steps,
	 * and the first step spaces the collections out already; the next collection gives
	 * back the rest.
	 */
	private static long givenBack(long full) throws InterruptedException {
		for (int i = 0; i < 150 && committed() >= full / 4; i++) {
			Thread.sleep(200);
		}
		return committed();
	}

	private static List<byte[]> load() {
		List<byte[]> live = new ArrayList<>();
		for (int i = 0; i < 600; i++) {
			live.add(new byte[1 << 20]);
		}
		return live;
	}

	private static long committed() {
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
	}

}
