package dev.streamgate.core.role;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class OnRoleConditionTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(RoleBeans.class);

	@Test
	void everyRoleRunsByDefault() {
		this.runner.run((context) -> assertThat(context).hasBean("admin").hasBean("sse"));
	}

	@Test
	void allEnablesEveryRole() {
		this.runner.withPropertyValues("streamgate.roles=all")
			.run((context) -> assertThat(context).hasBean("admin").hasBean("sse"));
	}

	@Test
	void aListEnablesOnlyItsRolesWhateverTheirCase() {
		this.runner.withPropertyValues("streamgate.roles=SSE, ingest")
			.run((context) -> assertThat(context).doesNotHaveBean("admin").hasBean("sse"));
	}

	@Test
	void anUnknownRoleStopsStartUpNamingTheValidOnes() {
		this.runner.withPropertyValues("streamgate.roles=admin,pollers")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("IllegalArgumentException")
				.hasMessageContaining("unknown role 'pollers'")
				.hasMessageContaining("admin, ingest, http-poller, kafka-publisher, stream, webhook, mercure"));
	}

	@Test
	void formerNamesStandForTheRolesThatNowCarryTheirWork() {
		this.runner.withPropertyValues("streamgate.roles=poller,sse")
			.run((context) -> assertThat(context).doesNotHaveBean("admin")
				.hasBean("sse")
				.hasBean("httpPoller")
				.hasBean("kafkaPublisher"));
		this.runner.withPropertyValues("streamgate.roles=kafka-publisher")
			.run((context) -> assertThat(context).hasBean("kafkaPublisher")
				.doesNotHaveBean("httpPoller")
				.doesNotHaveBean("sse"));
	}

	@Configuration(proxyBeanMethods = false)
	static class RoleBeans {

		@Bean
		@ConditionalOnRole(Role.HTTP_POLLER)
		String httpPoller() {
			return "httpPoller";
		}

		@Bean
		@ConditionalOnRole(Role.KAFKA_PUBLISHER)
		String kafkaPublisher() {
			return "kafkaPublisher";
		}

		@Bean
		@ConditionalOnRole(Role.ADMIN)
		String admin() {
			return "admin";
		}

		@Bean
		@ConditionalOnRole(Role.STREAM)
		String sse() {
			return "sse";
		}

	}

}
