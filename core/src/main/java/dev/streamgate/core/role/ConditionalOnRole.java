package dev.streamgate.core.role;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Conditional;

/**
 * Registers a bean only on nodes that run one of the given roles
 * ({@code streamgate.roles}, default {@code all}).
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnRoleCondition.class)
public @interface ConditionalOnRole {

	/**
	 * The roles of which one at least must be enabled.
	 * @return the roles
	 */
	Role[] value();

}
