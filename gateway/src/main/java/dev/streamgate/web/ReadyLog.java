package dev.streamgate.web;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Tells a person who just started the gateway where everything is, once it serves: the
 * API, the console (on admin nodes), the OpenAPI UI, health and metrics.
 */
@Component
class ReadyLog implements ApplicationListener<ApplicationReadyEvent> {

	private static final Log logger = LogFactory.getLog(ReadyLog.class);

	@Override
	public void onApplicationEvent(ApplicationReadyEvent event) {
		Environment environment = event.getApplicationContext().getEnvironment();
		String port = environment.getProperty("local.server.port");
		if (port == null) {
			return;
		}
		String address = environment.getProperty("server.address", "localhost");
		String base = "http://" + (address.equals("0.0.0.0") ? "localhost" : address) + ":" + port;
		StringBuilder message = new StringBuilder("streamgate is up (roles: ")
			.append(environment.getProperty("streamgate.roles", "all"))
			.append("memory".equalsIgnoreCase(environment.getProperty("streamgate.storage", "kafka").trim())
					? "; storage: memory, nothing is kept across a restart" : "")
			.append(")\n    API          ")
			.append(base)
			.append("/api/v1");
		if (event.getApplicationContext().containsBean("consoleRoutes")) {
			message.append("\n    console      ").append(base).append("/console/");
		}
		message.append("\n    OpenAPI UI   ")
			.append(base)
			.append("/swagger-ui.html")
			.append("\n    readiness    ")
			.append(base)
			.append("/actuator/health/readiness")
			.append("\n    metrics      ")
			.append(base)
			.append("/actuator/prometheus");
		logger.info(message);
	}

}
