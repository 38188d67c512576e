package dev.streamgate.diagnostics;

import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The node's watch over itself, and what it asks of its JVM.
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

	@Bean
	EventLoopWatchdog eventLoopWatchdog(DiagnosticsProperties properties) {
		return new EventLoopWatchdog(properties.blockedEventLoop());
	}

}
