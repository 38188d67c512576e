package dev.streamgate.bench.simulation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The rows of the two tables in REFERENCE.md (Axway Streams, 2021) and the tables in
 * {@code docs/benchmarks.md} where our figure for each row is written beside theirs.
 * <p>
 * A simulation run with {@code row=sse-3} (or {@code ROW=webhook-12}) takes that row's
 * users, topics, payload and period, and afterwards replaces the row's line between the
 * {@code <!-- reference:sse -->} (or {@code webhook}) markers of the document.
 */
final class ReferenceTable {

	static final List<Row> ROWS = List.of(sse(1, 3000, 100, 50, 500, 21, 250, 5455.5),
			sse(2, 250, 250, 50, 500, 5, 34, 455.3), sse(3, 100, 100, 50, 500, 5, 23, 182.1),
			sse(4, 100, 1, 50, 500, 13, 46, 182.4), sse(5, 3000, 100, 20, 500, 6, 84, 5455.4),
			sse(6, 250, 250, 20, 500, 3, 23, 455.3), sse(7, 100, 100, 20, 500, 3, 19, 182.1),
			sse(8, 100, 1, 20, 500, 5, 45, 182.4), sse(9, 3000, 100, 50, 1000, 26, 86, 2736.6),
			sse(10, 250, 250, 50, 1000, 5, 19, 228.0), sse(11, 100, 100, 50, 1000, 6, 24, 91.2),
			sse(12, 100, 1, 50, 1000, 23, 222, 91.5), sse(13, 3000, 100, 20, 1000, 6, 72, 2736.8),
			sse(14, 250, 250, 20, 1000, 4, 25, 228.0), sse(15, 100, 100, 20, 1000, 4, 19, 91.2),
			sse(16, 100, 1, 20, 1000, 8, 21, 91.5), webhook(1, 50, 1, 20, 1000, 76, 135, 47.62),
			webhook(2, 200, 1, 20, 1000, 220, 289, 183.49), webhook(3, 750, 1, 20, 1000, 835, 972, 657.89),
			webhook(4, 50, 50, 20, 1000, 40, 67, 47.39), webhook(5, 200, 200, 20, 1000, 41, 130, 185.19),
			webhook(6, 50, 1, 50, 1000, 72, 85, 47.39), webhook(7, 200, 1, 50, 1000, 214, 263, 181.82),
			webhook(8, 750, 1, 50, 1000, 810, 958, 657.89), webhook(9, 50, 50, 50, 1000, 45, 85, 46.95),
			webhook(10, 200, 200, 50, 1000, 111, 340, 174.67), webhook(11, 500, 500, 20, 2000, 87, 345, 205.76),
			webhook(12, 750, 1, 50, 2000, 858, 1007, 297.62), webhook(13, 500, 500, 50, 2000, 270, 721, 184.50));

	private ReferenceTable() {
	}

	/**
	 * The row named by the {@code row} knob, if any.
	 */
	static Row chosen(String kind) {
		String key = Knobs.text("row", null);
		if (key == null) {
			return null;
		}
		Row row = ROWS.stream()
			.filter((candidate) -> candidate.key().equals(key))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("No reference row " + key));
		if (!row.kind().equals(kind)) {
			throw new IllegalArgumentException("Row " + key + " is not a " + kind + " row");
		}
		return row;
	}

	/**
	 * Writes a run's figures into the row's line of {@code docs/benchmarks.md}.
	 */
	static void record(Row row, Map<String, Object> results) {
		Path document = BenchEnvironment.root().resolve("docs/benchmarks.md");
		try {
			List<String> lines = new ArrayList<>(Files.readAllLines(document));
			int start = lines.indexOf("<!-- reference:" + row.kind() + " -->");
			int end = lines.indexOf("<!-- /reference:" + row.kind() + " -->");
			if (start < 0 || end < start) {
				throw new IllegalStateException("docs/benchmarks.md has no reference:" + row.kind() + " markers");
			}
			String line = line(row, results);
			int existing = -1;
			for (int i = start; i < end; i++) {
				if (lines.get(i).startsWith("| " + row.key() + " |")) {
					existing = i;
				}
			}
			if (existing >= 0) {
				lines.set(existing, line);
			}
			else {
				lines.add(end, line);
			}
			Files.write(document, lines);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String line(Row row, Map<String, Object> results) {
		return String.format(Locale.ROOT,
				"| %s | %d | %d | %d KB | %s | %s | **%s** | %s | **%s** | %s | **%s** | %s | %s | %s | %s | %s |",
				row.key(), row.users(), row.topics(), row.payloadKb(), period(row.period()), number(row.p99()),
				results.get("p99Ms"), number(row.max()), results.get("maxMs"), number(row.throughput()),
				results.get("eventsPerSecond"), results.get("p50Ms"), results.getOrDefault("gatewayCpuCores", "–"),
				results.getOrDefault("gatewayRssMaxMiB", "–"), results.get("via"),
				LocalDate.now() + ", " + results.get("windowSeconds") + " s after " + Knobs.text("ramp", "?")
						+ (results.containsKey("stealCores") ? ", steal " + results.get("stealCores") + " core" : "")
						+ failedPublishes(results));
	}

	/** A run whose publishes failed says so in its row, however fast its deliveries. */
	private static String failedPublishes(Map<String, Object> results) {
		Object failed = results.get("failedPublishes");
		return (failed instanceof Number count && count.longValue() > 0) ? ", **" + count + " publishes failed**" : "";
	}

	private static String period(Duration period) {
		return (period.toMillis() % 1000 == 0) ? period.toSeconds() + " s" : period.toMillis() + " ms";
	}

	private static String number(double value) {
		return (value == Math.rint(value)) ? Long.toString((long) value) : Double.toString(value);
	}

	private static Row sse(int n, int users, int topics, int kb, int periodMs, double p99, double max,
			double throughput) {
		return new Row("sse-" + n, "sse", users, topics, kb, Duration.ofMillis(periodMs), p99, max, throughput);
	}

	private static Row webhook(int n, int users, int topics, int kb, int periodMs, double p99, double max,
			double throughput) {
		return new Row("webhook-" + n, "webhook", users, topics, kb, Duration.ofMillis(periodMs), p99, max, throughput);
	}

	/**
	 * One row of a reference table.
	 *
	 * @param key {@code sse-1} to {@code sse-16}, {@code webhook-1} to {@code webhook-13}
	 * @param kind {@code sse} or {@code webhook}
	 * @param users concurrently subscribed clients (SSE) or registered webhooks
	 * @param topics topics the users are spread over
	 * @param payloadKb payload size in KB (1024 bytes)
	 * @param period publication period of each topic
	 * @param p99 the reference's p99 latency, ms
	 * @param max the reference's max latency, ms
	 * @param throughput the reference's delivered events per second
	 */
	record Row(String key, String kind, int users, int topics, int payloadKb, Duration period, double p99, double max,
			double throughput) {
	}

}
