package dev.streamgate.web;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import dev.streamgate.support.GatewayKafka;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The served OpenAPI document: built off the event loops, whose connections would all
 * wait the seconds its first build takes.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient
class OpenApiIntegrationTests {

	@DynamicPropertySource
	static void kafka(DynamicPropertyRegistry registry) {
		GatewayKafka.register(registry);
	}

	@Autowired
	private WebTestClient client;

	@Autowired
	private BuildingThreads building;

	@Test
	void theDocumentIsBuiltOffTheEventLoops() {
		this.client.get()
			.uri("/v3/api-docs")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.paths['/api/v1/publish/{topicId}']")
			.exists();
		assertThat(this.building.names).isNotEmpty().noneMatch((name) -> name.startsWith("reactor-http"));
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class BuildingThreadsConfiguration {

		@Bean
		BuildingThreads buildingThreads() {
			return new BuildingThreads();
		}

		@Bean
		OpenApiCustomizer recordBuildingThread(BuildingThreads threads) {
			return (openApi) -> threads.names.add(Thread.currentThread().getName());
		}

	}

	static final class BuildingThreads {

		final List<String> names = new CopyOnWriteArrayList<>();

	}

}
