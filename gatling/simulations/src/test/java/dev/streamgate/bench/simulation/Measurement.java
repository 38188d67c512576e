package dev.streamgate.bench.simulation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The measured window of a run: end-to-end latencies (receipt time minus the time the
 * source stamped into the event, in ms) into an HdrHistogram, deliveries counted, and the
 * gateway's CPU and RSS read from {@code /proc}. Only what happens inside the window
 * counts: the ramp before it and the drain after it are left out.
 */
final class Measurement {

	private final Recorder latencies = new Recorder(3);

	private final LongAdder delivered = new LongAdder();

	private final LongAdder unstamped = new LongAdder();

	private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "bench-sampler");
		thread.setDaemon(true);
		return thread;
	});

	private final long pid;

	private volatile long windowStart = Long.MAX_VALUE;

	private volatile long windowEnd = Long.MAX_VALUE;

	private long cpuTicksAtStart;

	private long cpuTicksAtEnd;

	/** The machine's time stolen by the hypervisor, in ticks, when the window opened. */
	private long stealTicksAtStart = -1;

	private long stealTicksAtEnd = -1;

	private long rssSamplesKiB;

	private int rssSamples;

	private long rssMaxKiB;

	Measurement(long pid) {
		this.pid = pid;
	}

	/**
	 * Opens the window after {@code delay} for {@code duration}.
	 */
	void schedule(Duration delay, Duration duration) {
		long start = System.currentTimeMillis() + delay.toMillis();
		this.windowStart = start;
		this.windowEnd = start + duration.toMillis();
		this.sampler.schedule(() -> {
			this.latencies.reset();
			this.cpuTicksAtStart = cpuTicks();
			this.stealTicksAtStart = stealTicks();
		}, delay.toMillis(), TimeUnit.MILLISECONDS);
		this.sampler.scheduleAtFixedRate(this::sampleRss, delay.toMillis(), 1000, TimeUnit.MILLISECONDS);
		this.sampler.schedule(() -> {
			this.cpuTicksAtEnd = cpuTicks();
			this.stealTicksAtEnd = stealTicks();
		}, delay.plus(duration).toMillis(), TimeUnit.MILLISECONDS);
	}

	boolean inWindow(long receivedAt) {
		return receivedAt >= this.windowStart && receivedAt < this.windowEnd;
	}

	/**
	 * Counts one delivery received at {@code receivedAt} (epoch ms) and, when
	 * {@code stampedAt} is positive, its latency.
	 */
	void delivered(long receivedAt, long stampedAt) {
		if (!inWindow(receivedAt)) {
			return;
		}
		this.delivered.increment();
		if (stampedAt > 0) {
			this.latencies.recordValue(Math.max(0, receivedAt - stampedAt));
		}
		else {
			this.unstamped.increment();
		}
	}

	private synchronized void sampleRss() {
		if (System.currentTimeMillis() >= this.windowEnd || this.pid < 0) {
			return;
		}
		long rss = statusKiB("VmRSS:");
		if (rss > 0) {
			this.rssSamplesKiB += rss;
			this.rssSamples++;
			this.rssMaxKiB = Math.max(this.rssMaxKiB, rss);
		}
	}

	/**
	 * The figures of the window, once it closed.
	 */
	synchronized Map<String, Object> results(Map<String, Object> settings) {
		this.sampler.shutdownNow();
		Histogram histogram = this.latencies.getIntervalHistogram();
		double seconds = (this.windowEnd - this.windowStart) / 1000.0;
		Map<String, Object> results = new LinkedHashMap<>(settings);
		results.put("date", Instant.now().toString());
		results.put("windowSeconds", seconds);
		results.put("delivered", this.delivered.sum());
		results.put("eventsPerSecond", round(this.delivered.sum() / seconds));
		results.put("latencySamples", histogram.getTotalCount());
		results.put("unstamped", this.unstamped.sum());
		results.put("p50Ms", histogram.getValueAtPercentile(50));
		results.put("p99Ms", histogram.getValueAtPercentile(99));
		results.put("p999Ms", histogram.getValueAtPercentile(99.9));
		results.put("maxMs", histogram.getMaxValue());
		if (this.pid >= 0 && this.cpuTicksAtEnd > 0) {
			results.put("gatewayCpuCores", round((this.cpuTicksAtEnd - this.cpuTicksAtStart) / 100.0 / seconds));
		}
		if (this.stealTicksAtStart >= 0 && this.stealTicksAtEnd >= 0) {
			// Cores the hypervisor ran something else on: on a shared virtual machine the
			// same run is slower when it is high (0.05-0.65 core on 2026-12-03).
			results.put("stealCores", round((this.stealTicksAtEnd - this.stealTicksAtStart) / 100.0 / seconds));
		}
		if (this.rssSamples > 0) {
			results.put("gatewayRssMiB", this.rssSamplesKiB / this.rssSamples / 1024);
			results.put("gatewayRssMaxMiB", this.rssMaxKiB / 1024);
		}
		return results;
	}

	/**
	 * Prints the results and writes them to {@code target/bench-results/<name>.json}; a
	 * run that measured no delivery fails.
	 */
	static void report(String name, Map<String, Object> results) {
		if (((Number) results.get("delivered")).longValue() == 0) {
			throw new IllegalStateException(name + " measured no delivery at all: " + results);
		}
		StringBuilder json = new StringBuilder("{");
		results.forEach((key, value) -> {
			if (json.length() > 1) {
				json.append(',');
			}
			json.append('"').append(key).append("\":");
			json.append((value instanceof Number || value instanceof Boolean) ? value.toString()
					: "\"" + value.toString().replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
		});
		json.append('}');
		System.out.println("RESULT " + json);
		try {
			Path dir = BenchEnvironment.root().resolve("gatling/simulations/target/bench-results");
			Files.createDirectories(dir);
			Files.writeString(dir.resolve(name + ".json"), json + "\n");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private long cpuTicks() {
		if (this.pid < 0) {
			return 0;
		}
		try {
			String stat = Files.readString(Path.of("/proc", Long.toString(this.pid), "stat"));
			String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
			// utime and stime, fields 14 and 15 of proc(5), counted from the state field
			// (3).
			return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
		}
		catch (IOException | RuntimeException ex) {
			return 0;
		}
	}

	/**
	 * The machine's steal time (the {@code cpu} line of {@code /proc/stat}, its eighth
	 * value), or -1 where there is none.
	 */
	private static long stealTicks() {
		try {
			String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
			return (cpu[0].equals("cpu") && cpu.length > 8) ? Long.parseLong(cpu[8]) : -1;
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	private long statusKiB(String field) {
		try {
			for (String line : Files.readAllLines(Path.of("/proc", Long.toString(this.pid), "status"))) {
				if (line.startsWith(field)) {
					return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
		return -1;
	}

	private static double round(double value) {
		return Math.round(value * 100) / 100.0;
	}

}
