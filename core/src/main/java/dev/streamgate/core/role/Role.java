package dev.streamgate.core.role;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

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
	WEBHOOK;

	/**
	 * Whether {@code streamgate.roles} enables this role.
	 * @param environment the environment
	 * @return true when the node runs it
	 */
	public boolean isEnabled(Environment environment) {
		return OnRoleCondition.enabledRoles(Binder.get(environment)).contains(this);
	}

}
