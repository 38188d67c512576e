package dev.streamgate.core.storage;

import java.util.EnumSet;
import java.util.Set;

import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

import dev.streamgate.core.role.Role;

/**
 * Matches when {@code streamgate.storage} chooses the storage of
 * {@link ConditionalOnStorage}.
 */
class OnStorageCondition implements Condition {

	@Override
	public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
		StorageMode wanted = (StorageMode) metadata.getAnnotationAttributes(ConditionalOnStorage.class.getName())
			.get("value");
		Set<Role> roles = EnumSet.noneOf(Role.class);
		for (Role role : Role.values()) {
			if (role.isEnabled(context.getEnvironment())) {
				roles.add(role);
			}
		}
		return StorageMode.of(context.getEnvironment(), roles) == wanted;
	}

}
