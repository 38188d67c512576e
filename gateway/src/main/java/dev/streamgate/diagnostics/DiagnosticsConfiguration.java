package dev.streamgate.diagnostics;

import java.util.Map;

import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.streamgate.core.egress.EgressGuard;
import dev.streamgate.core.trace.EventTracing;

/**
 * The node's watch over itself, what it asks of its JVM, and the traces of its events.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({ DiagnosticsProperties.class, JvmProperties.class })
public class DiagnosticsConfiguration {

	private static final Log logger = LogFactory.getLog(DiagnosticsConfiguration.class);

	@Bean
	IdleHeap idleHeapReturn(JvmProperties properties) {
		return new IdleHeap(properties);
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

	/**
	 * The server's loops, and the loops of outgoing connections on a node that makes
	 * them.
	 */
	@Bean
	EventLoopWatchdog eventLoopWatchdog(DiagnosticsProperties properties, ObjectProvider<EgressGuard> egress) {
		return new EventLoopWatchdog(properties.blockedEventLoop(),
				egress.stream().map(EgressGuard::eventLoops).toList());
	}

	/**
	 * Applies the JVM settings once the context is up, and spaces out the periodic
	 * collections it asked for until the context closes.
	 */
	static final class IdleHeap implements SmartInitializingSingleton, DisposableBean {

		private final JvmProperties properties;

		private PeriodicCollections periodic;

		IdleHeap(JvmProperties properties) {
			this.properties = properties;
		}

		@Override
		public void afterSingletonsInstantiated() {
			Map<String, String> changed = IdleHeapReturn.apply(this.properties);
			if (changed.isEmpty()) {
				return;
			}
			boolean spaced = changed.containsKey("G1PeriodicGCInterval");
			logger.info("Unused heap goes back to the system after " + this.properties.returnIdleHeapAfter()
					+ " without a collection" + (spaced ? " (at most every "
							+ this.properties.longestIdleCollectionInterval() + " once it has been given back)" : "")
					+ " (streamgate.jvm.*): " + changed);
			if (spaced) {
				this.periodic = PeriodicCollections.watch(this.properties.returnIdleHeapAfter().toMillis(),
						this.properties.longestIdleCollectionInterval().toMillis());
			}
		}

		@Override
		public void destroy() {
			if (this.periodic != null) {
				this.periodic.close();
			}
		}

	}

}
