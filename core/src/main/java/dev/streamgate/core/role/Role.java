package dev.streamgate.core.role;

import java.util.Map;
import java.util.Set;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The parts of streamgate that a node can run; {@code streamgate.roles} picks them by
 * name ({@link #roleName()}), or by an older name that stands for some of them
 * ({@code poller}: both publishers that poll, {@code sse}: {@code stream}).
 */
public enum Role {

	/** The topic and webhook admin API. */
	ADMIN("admin"),

	/** The HTTP POST publish API. */
	INGEST("ingest"),

	/** The HTTP pollers of {@code http-poller} topics. */
	HTTP_POLLER("http-poller"),

	/** The mirrors of {@code kafka} publisher topics. */
	KAFKA_PUBLISHER("kafka-publisher"),

	/** The subscriber streams: Server-Sent Events and WebSocket. */
	STREAM("stream"),

	/** Webhook deliveries and Kafka subscriptions. */
	WEBHOOK("webhook"),

	/**
	 * The Mercure hub at {@code /.well-known/mercure}: its publications and
	 * subscriptions.
	 */
	MERCURE("mercure");

	/** The names of earlier versions, each standing for roles of today. */
	static final Map<String, Set<Role>> FORMER_NAMES = Map.of("poller", Set.of(HTTP_POLLER, KAFKA_PUBLISHER), "sse",
			Set.of(STREAM));

	private final String roleName;

	Role(String roleName) {
		this.roleName = roleName;
	}

	/**
	 * The role's name in {@code streamgate.roles}.
	 * @return the name
	 */
	public String roleName() {
		return this.roleName;
	}

	/**
	 * Whether {@code streamgate.roles} enables this role.
	 * @param environment the environment
	 * @return true when the node runs it
	 */
	public boolean isEnabled(Environment environment) {
		return OnRoleCondition.enabledRoles(Binder.get(environment)).contains(this);
	}

}
