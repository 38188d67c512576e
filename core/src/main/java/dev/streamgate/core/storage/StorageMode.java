package dev.streamgate.core.storage;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

import dev.streamgate.core.role.Role;

/**
 * Where a node keeps topics, events and everything else: {@code streamgate.storage}.
 */
public enum StorageMode {

	/** Kafka: durable, shared by every node of a cluster (the default). */
	KAFKA,

	/**
	 * This process's memory: one node running every role, nothing kept across a restart;
	 * for development, demonstrations, tests and small devices at the edge.
	 */
	MEMORY;

	/** The property that chooses. */
	public static final String PROPERTY = "streamgate.storage";

	/**
	 * The mode an environment chooses, checked against its roles.
	 * @param environment the environment
	 * @param roles the roles the node runs
	 * @return the mode
	 * @throws IllegalArgumentException for an unknown mode, or memory with only some
	 * roles
	 */
	public static StorageMode of(Environment environment, Set<Role> roles) {
		String value = Binder.get(environment).bind(PROPERTY, String.class).orElse("kafka");
		StorageMode mode;
		try {
			mode = valueOf(value.trim().toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(PROPERTY + " is kafka or memory, not '" + value + "'");
		}
		if (mode == MEMORY && !roles.equals(EnumSet.allOf(Role.class))) {
			throw new IllegalArgumentException(PROPERTY + "=memory keeps topics and events in this node alone, "
					+ "which must then run every role (streamgate.roles=all); a node of a cluster needs " + PROPERTY
					+ "=kafka, where the nodes share them");
		}
		return mode;
	}

}
