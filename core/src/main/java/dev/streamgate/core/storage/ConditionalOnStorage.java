package dev.streamgate.core.storage;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Conditional;

/**
 * Registers a configuration or bean only where {@code streamgate.storage} chooses this
 * storage. The first such condition evaluated stops a node whose choice is unknown, or
 * does not fit its roles, with the reason.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnStorageCondition.class)
public @interface ConditionalOnStorage {

	/**
	 * The storage.
	 * @return the storage
	 */
	StorageMode value();

}
