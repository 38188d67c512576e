package dev.streamgate.web;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.info.License;
import io.swagger.v3.oas.models.media.ArraySchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.customizers.OperationCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.WebFilter;
import reactor.core.scheduler.Schedulers;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.topic.Publisher;
import dev.streamgate.core.web.ProblemResponses;

/**
 * The served OpenAPI document: its header, the RFC 9457 problem schema, and each
 * operation's error answers from {@link ProblemResponses}.
 */
@Configuration(proxyBeanMethods = false)
public class OpenApiConfiguration {

	static final String PROBLEM_JSON = "application/problem+json";

	@Bean
	OpenAPI streamgateOpenApi() {
		return new OpenAPI()
			.info(new Info().title("streamgate")
				.version("v1")
				.description("Event-streaming gateway: HTTP publishers into Kafka, SSE, WebSocket and webhook "
						+ "subscribers out of it. Every error is RFC 9457 problem+json with a type under "
						+ ProblemType.BASE_URI + ". WebSocket subscribers connect to GET /api/v1/ws (upgrade) and "
						+ "send {\"subscribe\": {\"topic\", \"mode\", \"lastEventId\"}} or "
						+ "{\"unsubscribe\": {\"topic\"}}; each event arrives as {\"topic\", \"type\", \"id\", "
						+ "\"data\"}, a refused subscribe as a message of type problem. Close codes: 4008 too slow, "
						+ "4401 token expired.")
				.license(new License().name("Apache-2.0")))
			.components(
					new Components().addSchemas("Problem", problemSchema())
						.addSecuritySchemes("bearer", new SecurityScheme().type(SecurityScheme.Type.HTTP)
							.scheme("bearer")
							.bearerFormat("JWT")
							.description("A JWT whose streamgate claim grants admin, publish or subscribe rights. "
									+ "Streams also take it as the access_token query parameter or the "
									+ "streamgate_token cookie; public topics stream without one.")))
			.addSecurityItem(new SecurityRequirement().addList("bearer"));
	}

	/**
	 * The OpenAPI document is built on first request, by reflection over every controller
	 * (over 2 s on a cold JVM): not on an event loop, where every connection of the loop
	 * would wait for it.
	 */
	@Bean
	WebFilter apiDocsOffTheEventLoops() {
		return (exchange, chain) -> exchange.getRequest().getPath().value().startsWith("/v3/api-docs")
				? chain.filter(exchange).subscribeOn(Schedulers.boundedElastic()) : chain.filter(exchange);
	}

	/**
	 * Gives each kind of a polymorphic type (a publisher) its {@code type} value in the
	 * document: without it every kind's schema would accept every other kind's JSON, and
	 * a {@code oneOf} of them would accept none.
	 * @return the customizer
	 */
	@Bean
	OpenApiCustomizer kindsCustomizer() {
		return (openApi) -> {
			Map<String, Schema> schemas = openApi.getComponents().getSchemas();
			Map<String, String> kinds = kinds(Publisher.class);
			if (schemas.get(Publisher.class.getSimpleName()) instanceof Schema<?> base) {
				base.addProperty("type", new StringSchema()._enum(List.copyOf(kinds.values())));
			}
			kinds.forEach((schemaName, typeName) -> {
				if (schemas.get(schemaName) instanceof Schema<?> kind) {
					kind.addProperty("type", new StringSchema()._enum(List.of(typeName)));
					kind.addRequiredItem("type");
				}
			});
		};
	}

	/**
	 * The kinds of a polymorphic type, by the name of their schema.
	 * @param type the type, with its kinds in {@link JsonSubTypes}
	 * @return each kind's {@code type} value, by the name of its schema
	 */
	static Map<String, String> kinds(Class<?> type) {
		Map<String, String> kinds = new LinkedHashMap<>();
		for (JsonSubTypes.Type kind : type.getAnnotation(JsonSubTypes.class).value()) {
			io.swagger.v3.oas.annotations.media.Schema schema = kind.value()
				.getAnnotation(io.swagger.v3.oas.annotations.media.Schema.class);
			kinds.put((schema != null && !schema.name().isEmpty()) ? schema.name() : kind.value().getSimpleName(),
					kind.name());
		}
		return kinds;
	}

	@Bean
	OperationCustomizer problemResponsesCustomizer() {
		return (operation, handlerMethod) -> {
			ProblemResponses problems = handlerMethod.getMethodAnnotation(ProblemResponses.class);
			if (problems != null) {
				java.util.Set<Integer> statuses = new java.util.TreeSet<>();
				for (int status : problems.value()) {
					statuses.add(status);
				}
				// Every API operation needs a token (401) granting the right (403).
				statuses.add(401);
				statuses.add(403);
				for (int status : statuses) {
					Content content = new Content().addMediaType(PROBLEM_JSON,
							new MediaType().schema(new Schema<>().$ref("#/components/schemas/Problem")));
					// An operation's own @ApiResponse for the status keeps its
					// description.
					ApiResponse declared = operation.getResponses().get(Integer.toString(status));
					String description = (declared != null && declared.getDescription() != null)
							? declared.getDescription() : HttpStatus.valueOf(status).getReasonPhrase();
					operation.getResponses()
						.addApiResponse(Integer.toString(status),
								new ApiResponse().description(description).content(content));
				}
			}
			return operation;
		};
	}

	private static Schema<?> problemSchema() {
		ObjectSchema error = new ObjectSchema();
		error.setProperties(Map.of("pointer", new StringSchema().description("RFC 6901 pointer into the request"),
				"detail", new StringSchema()));
		ObjectSchema problem = new ObjectSchema();
		problem.description("RFC 9457 problem details");
		problem.addProperty("type", new StringSchema().format("uri").example(ProblemType.TOPIC_NOT_FOUND.type()));
		problem.addProperty("title", new StringSchema());
		problem.addProperty("status", new IntegerSchema());
		problem.addProperty("detail", new StringSchema());
		problem.addProperty("instance", new StringSchema().format("uri-reference"));
		problem.addProperty("errors", new ArraySchema().items(error));
		return problem;
	}

}
