package dev.streamgate;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * The streamgate gateway: every role in one application, switched by
 * {@code streamgate.roles}.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class StreamgateApplication {

	public static void main(String[] args) {
		SpringApplication.run(StreamgateApplication.class, args);
	}

}
