package dev.streamgate.core.role;

/**
 * The parts of streamgate that a node can run; {@code streamgate.roles} picks them.
 */
public enum Role {

	/** The topic and webhook admin API. */
	ADMIN,

	/** The HTTP POST publish API. */
	INGEST,

	/** The HTTP pollers. */
	POLLER,

	/** The Server-Sent Events streams. */
	SSE,

	/** The webhook deliveries. */
	WEBHOOK

}
