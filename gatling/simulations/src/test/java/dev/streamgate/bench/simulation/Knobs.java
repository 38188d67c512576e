package dev.streamgate.bench.simulation;

import java.time.Duration;
import java.util.Locale;

/**
 * The simulations' settings: a system property ({@code -Dusers=100}) or else an
 * environment variable ({@code USERS=100}), else the preset of the chosen reference row,
 * else a default.
 */
final class Knobs {

	private Knobs() {
	}

	static String text(String name, String fallback) {
		String value = System.getProperty(name);
		if (value == null || value.isBlank()) {
			value = System.getenv(name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'));
		}
		return (value != null && !value.isBlank()) ? value.trim() : fallback;
	}

	static int integer(String name, int fallback) {
		return Integer.parseInt(text(name, Integer.toString(fallback)));
	}

	/**
	 * A duration: ISO-8601 ({@code PT0.5S}) or a number with {@code ms}, {@code s} or
	 * {@code m}.
	 */
	static Duration duration(String name, Duration fallback) {
		String value = text(name, null);
		return (value != null) ? parseDuration(value) : fallback;
	}

	static Duration parseDuration(String value) {
		String lower = value.toLowerCase(Locale.ROOT);
		if (lower.startsWith("pt")) {
			return Duration.parse(value);
		}
		if (lower.endsWith("ms")) {
			return Duration.ofMillis(Long.parseLong(lower.substring(0, lower.length() - 2)));
		}
		if (lower.endsWith("s")) {
			return Duration.ofMillis(Math.round(Double.parseDouble(lower.substring(0, lower.length() - 1)) * 1000));
		}
		if (lower.endsWith("m")) {
			return Duration.ofMinutes(Long.parseLong(lower.substring(0, lower.length() - 1)));
		}
		throw new IllegalArgumentException("Not a duration: " + value);
	}

	/**
	 * A size in bytes: a number, or a number with {@code KB} or {@code KiB} (both 1024,
	 * as in the reference tables' "20 KB").
	 */
	static int bytes(String name, int fallback) {
		String value = text(name, null);
		return (value != null) ? parseBytes(value) : fallback;
	}

	static int parseBytes(String value) {
		String upper = value.toUpperCase(Locale.ROOT).replace(" ", "");
		if (upper.endsWith("KIB") || upper.endsWith("KB")) {
			return Integer.parseInt(upper.substring(0, upper.indexOf('K'))) * 1024;
		}
		return Integer.parseInt(upper);
	}

}
