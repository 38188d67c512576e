package dev.streamgate.storage.kafka;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

class KafkaConnectionPropertiesTests {

	// The Helm chart passes Kafka client settings as environment variables in this form.
	@Test
	void environmentVariablesBindToBootstrapServersAndClientProperties() {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
					new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
							Map.of("SPRING_KAFKA_BOOTSTRAP_SERVERS", "a:9092,b:9093",
									"SPRING_KAFKA_PROPERTIES_SSL_TRUSTSTORE_LOCATION", "/etc/ca.crt",
									"SPRING_KAFKA_PROPERTIES_SECURITY_PROTOCOL", "SASL_SSL")));
		ConfigurationPropertySources.attach(environment);
		KafkaConnectionProperties properties = Binder.get(environment)
			.bind("spring.kafka", KafkaConnectionProperties.class)
			.get();
		assertThat(properties.bootstrapServers()).containsExactly("a:9092", "b:9093");
		assertThat(properties.properties()).containsEntry("ssl.truststore.location", "/etc/ca.crt")
			.containsEntry("security.protocol", "SASL_SSL");
	}

}
