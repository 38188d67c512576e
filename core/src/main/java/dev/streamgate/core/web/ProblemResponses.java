package dev.streamgate.core.web;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The problem+json error statuses an operation can answer, added to the OpenAPI document
 * by the gateway's OpenAPI configuration.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ProblemResponses {

	/**
	 * The HTTP statuses.
	 * @return the statuses
	 */
	int[] value();

}
