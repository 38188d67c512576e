package dev.streamgate.core.web;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * The points in time the admin API takes (webhook replay's {@code since}, a topic's
 * cursor {@code at}): ISO-8601 with an offset, from 1970 to year 9999.
 */
public final class IsoTimes {

	/** What the refusals say is expected. */
	public static final String EXPECTED = "an ISO-8601 time with an offset between 1970 and 9999, such as 2026-11-21T10:00:00Z";

	private static final Instant LATEST = Instant.parse("+10000-01-01T00:00:00Z");

	private IsoTimes() {
	}

	/**
	 * Reads a time.
	 * @param text what the client sent, or {@code null}
	 * @return the time, or empty when it is none of the expected form
	 */
	public static Optional<Instant> parse(String text) {
		if (text == null) {
			return Optional.empty();
		}
		try {
			Instant time = OffsetDateTime.parse(text.trim()).toInstant();
			return (!time.isBefore(Instant.EPOCH) && time.isBefore(LATEST)) ? Optional.of(time) : Optional.empty();
		}
		catch (DateTimeParseException ex) {
			return Optional.empty();
		}
	}

}
