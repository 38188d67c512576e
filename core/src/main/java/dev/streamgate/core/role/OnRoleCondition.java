package dev.streamgate.core.role;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code streamgate.roles} enables one of the roles of
 * {@link ConditionalOnRole}.
 */
class OnRoleCondition implements Condition {

	@Override
	public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Role[] roles = (Role[]) metadata.getAnnotationAttributes(ConditionalOnRole.class.getName()).get("value");
		Set<Role> enabled = enabledRoles(Binder.get(context.getEnvironment()));
		return Arrays.stream(roles).anyMatch(enabled::contains);
	}

	/**
	 * The roles {@code streamgate.roles} enables.
	 * @param binder the environment's binder
	 * @return the roles
	 * @throws IllegalArgumentException on an unknown role name
	 */
	static Set<Role> enabledRoles(Binder binder) {
		List<String> names = binder.bind("streamgate.roles", Bindable.listOf(String.class)).orElse(List.of("all"));
		Set<Role> roles = EnumSet.noneOf(Role.class);
		for (String name : names) {
			String normalized = name.trim().toLowerCase(Locale.ROOT);
			if (normalized.equals("all")) {
				return EnumSet.allOf(Role.class);
			}
			Set<Role> former = Role.FORMER_NAMES.get(normalized);
			if (former != null) {
				roles.addAll(former);
				continue;
			}
			Role role = Arrays.stream(Role.values())
				.filter((candidate) -> candidate.roleName().equals(normalized))
				.findFirst()
				.orElseThrow(() -> new IllegalArgumentException(
						"streamgate.roles: unknown role '" + name + "'; use all or a list of "
								+ Arrays.stream(Role.values()).map(Role::roleName).collect(Collectors.joining(", "))));
			roles.add(role);
		}
		return roles;
	}

}
