package dev.streamgate.diagnostics;

import java.util.Map;

import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.streamgate.core.trace.EventTracing;

/**
 * The node's watch over itself, what it asks of its JVM, and the traces of its events.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({ DiagnosticsProperties.class, JvmProperties.class })
public class DiagnosticsConfiguration {

	private static final Log logger = LogFactory.getLog(DiagnosticsConfiguration.class);

	@Bean
	SmartInitializingSingleton idleHeapReturn(JvmProperties properties) {
		return () -> {
			Map<String, String> changed = IdleHeapReturn.apply(properties);
			if (!changed.isEmpty()) {
				logger.info("Unused heap goes back to the system after " + properties.returnIdleHeapAfter()
						+ " without a collection (streamgate.jvm.*): " + changed);
			}
		};
	}

	/**
	 * Trace context along events, when Micrometer Tracing is set up (it is unless
	 * {@code management.tracing.enabled=false}).
	 */
	@Bean
	EventTracing eventTracing(ObjectProvider<Tracer> tracer, ObjectProvider<Propagator> propagator) {
		Tracer available = tracer.getIfAvailable();
		Propagator propagation = propagator.getIfAvailable();
		return (available != null && propagation != null) ? new MicrometerEventTracing(available, propagation)
				: EventTracing.NONE;
	}

	@Bean
	EventLoopWatchdog eventLoopWatchdog(DiagnosticsProperties properties) {
		return new EventLoopWatchdog(properties.blockedEventLoop());
	}

}
