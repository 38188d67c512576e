package dev.streamgate.web;

import java.net.URI;
import java.security.Principal;
import java.util.List;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.PayloadType;
import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.core.web.SubscribeAccess;

/**
 * The AsyncAPI 3 document of the topics: served at {@code /asyncapi} beside the OpenAPI
 * document, made from the topic registry at each request. A channel per topic the caller
 * may subscribe to (every topic without security, the public ones and those its token
 * grants with it), its address the topic's stream, its messages what the stream sends
 * (events, or snapshots and patches, and problems) with the topic's payload schema when
 * it declares one, and a receive operation per channel.
 */
@RestController
@Tag(name = "Contract", description = "The AsyncAPI document of the topics")
public class AsyncApiController {

	static final String ASYNCAPI_VERSION = "3.1.0";

	private static final String SSE_SERVER = "streamgate";

	private static final String WS_SERVER = "websocket";

	private static final String WS_CHANNEL = "websocket";

	private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

	private final TopicStore topics;

	private final SubscribeAccess access;

	AsyncApiController(TopicStore topics, SubscribeAccess access) {
		this.topics = topics;
		this.access = access;
	}

	@GetMapping(path = "/asyncapi", produces = MediaType.APPLICATION_JSON_VALUE)
	@Operation(summary = "The AsyncAPI 3 document of the topics the caller may subscribe to")
	@ApiResponse(responseCode = "200", description = "The document",
			content = @Content(schema = @Schema(type = "object")))
	public Mono<JsonNode> document(ServerWebExchange exchange) {
		return exchange.getPrincipal()
			.map((principal) -> build(exchange.getRequest(), principal))
			.switchIfEmpty(Mono.fromSupplier(() -> build(exchange.getRequest(), null)));
	}

	private JsonNode build(ServerHttpRequest request, Principal principal) {
		ObjectNode document = JSON.objectNode();
		document.put("asyncapi", ASYNCAPI_VERSION);
		document.set("info",
				JSON.objectNode()
					.put("title", "streamgate topics")
					.put("version", "v1")
					.put("description", "The topics of this streamgate gateway as Server-Sent Events streams "
							+ "(GET the channel's address with Accept: text/event-stream; the SSE event field is the "
							+ "message name, each data event's id its resume cursor). Webhooks and WebSocket "
							+ "subscribers receive the same messages; see /v3/api-docs for the HTTP API."));
		URI uri = request.getURI();
		boolean tls = "https".equals(uri.getScheme());
		document.set("servers", JSON.objectNode()
			.<ObjectNode>set(SSE_SERVER,
					server(uri, uri.getScheme(),
							"Server-Sent Events streams: GET a channel's address " + "with Accept: text/event-stream"))
			.set(WS_SERVER, server(uri, tls ? "wss" : "ws",
					"WebSocket: one connection, several topics (subscribe and unsubscribe messages)")));
		document.put("defaultContentType", "application/json");
		ObjectNode channels = JSON.objectNode();
		ObjectNode operations = JSON.objectNode();
		List<Topic> visible = this.topics.list()
			.stream()
			.map(StoredTopic::topic)
			.filter((topic) -> this.access.check(principal, topic) == SubscribeAccess.Verdict.ALLOWED)
			.toList();
		for (Topic topic : visible) {
			ObjectNode channel = channel(topic);
			channels.set(topic.id(), channel);
			ArrayNode messages = JSON.arrayNode();
			channel.get("messages")
				.propertyNames()
				.forEach((name) -> messages.add(ref("#/channels/" + topic.id() + "/messages/" + name)));
			operations.set(topic.id() + ".receive",
					JSON.objectNode()
						.put("action", "receive")
						.put("summary", "Stream " + topic.id())
						.<ObjectNode>set("channel", ref("#/channels/" + topic.id()))
						.set("messages", messages));
		}
		channels.set(WS_CHANNEL, webSocketChannel());
		operations.set(WS_CHANNEL + ".send", JSON.objectNode()
			.put("action", "send")
			.put("summary", "Subscribe to topics, unsubscribe from them and refresh the token on the connection")
			.<ObjectNode>set("channel", ref("#/channels/" + WS_CHANNEL))
			.set("messages",
					JSON.arrayNode()
						.add(ref("#/channels/" + WS_CHANNEL + "/messages/subscribe"))
						.add(ref("#/channels/" + WS_CHANNEL + "/messages/unsubscribe"))
						.add(ref("#/channels/" + WS_CHANNEL + "/messages/refresh"))));
		operations.set(WS_CHANNEL + ".receive",
				JSON.objectNode()
					.put("action", "receive")
					.put("summary", "The events of every topic subscribed to on the connection")
					.<ObjectNode>set("channel", ref("#/channels/" + WS_CHANNEL))
					.set("messages",
							JSON.arrayNode()
								.add(ref("#/channels/" + WS_CHANNEL + "/messages/message"))
								.add(ref("#/channels/" + WS_CHANNEL + "/messages/problem"))
								.add(ref("#/channels/" + WS_CHANNEL + "/messages/tokenExpiring"))));
		document.set("channels", channels);
		document.set("operations", operations);
		document.set("components", components());
		return document;
	}

	private static ObjectNode channel(Topic topic) {
		ObjectNode messages = JSON.objectNode();
		JsonNode payload = payload(topic);
		if (topic.payloadType() == PayloadType.SNAPSHOT) {
			messages.set("snapshot", JSON.objectNode()
				.put("name", "snapshot")
				.put("summary",
						"The whole document (first message of the snapshot modes, every message of " + "snapshot-only)")
				.set("payload", payload));
			messages.set("patch", ref("#/components/messages/patch"));
		}
		else {
			messages.set("event",
					JSON.objectNode()
						.put("name", "event")
						.put("summary", "One published event")
						.set("payload", payload));
		}
		messages.set("problem", ref("#/components/messages/problem"));
		messages.set("tokenExpiring", ref("#/components/messages/tokenExpiring"));
		String modes = String.join(", ", topic.subscriptionModes().stream().map(SubscriptionMode::value).toList());
		return JSON.objectNode()
			.put("address", "/api/v1/stream/" + topic.id())
			.<ObjectNode>set("servers", JSON.arrayNode().add(ref("#/servers/" + SSE_SERVER)))
			.put("title", topic.name())
			.put("description",
					"A " + topic.payloadType() + " topic fed by its " + topic.publisher().type()
							+ " publisher; subscription modes " + modes + " (default "
							+ topic.defaultSubscriptionMode().value() + ", ?mode=)"
							+ (Boolean.TRUE.equals(topic.isPublic()) ? "; public: no token needed"
									: "; a token granting it is needed"))
			.set("messages", messages);
	}

	/**
	 * The topic's schema when it declares one (without $schema: AsyncAPI names its own).
	 */
	private static JsonNode payload(Topic topic) {
		if (topic.schema() == null) {
			return (topic.payloadType() == PayloadType.SNAPSHOT)
					? JSON.objectNode().set("type", JSON.arrayNode().add("object").add("array")) : JSON.objectNode();
		}
		JsonNode schema = topic.schema().deepCopy();
		if (schema instanceof ObjectNode object) {
			object.remove("$schema");
		}
		return schema;
	}

	private static ObjectNode components() {
		ObjectNode operation = JSON.objectNode().put("type", "object");
		operation.set("required", JSON.arrayNode().add("op").add("path"));
		operation.set("properties", JSON.objectNode()
			.<ObjectNode>set("op", JSON.objectNode()
				.put("type", "string")
				.set("enum",
						JSON.arrayNode().add("add").add("remove").add("replace").add("move").add("copy").add("test")))
			.<ObjectNode>set("path", JSON.objectNode().put("type", "string"))
			.<ObjectNode>set("from", JSON.objectNode().put("type", "string"))
			.set("value", JSON.objectNode()));
		ObjectNode problem = JSON.objectNode().put("type", "object");
		problem.set("required", JSON.arrayNode().add("type").add("title").add("status"));
		problem.set("properties",
				JSON.objectNode()
					.<ObjectNode>set("type", JSON.objectNode().put("type", "string").put("format", "uri"))
					.<ObjectNode>set("title", JSON.objectNode().put("type", "string"))
					.<ObjectNode>set("status", JSON.objectNode().put("type", "integer"))
					.set("detail", JSON.objectNode().put("type", "string")));
		ObjectNode expiring = JSON.objectNode().put("type", "object");
		expiring.set("required", JSON.arrayNode().add("expiresAt"));
		expiring.set("properties",
				JSON.objectNode().set("expiresAt", JSON.objectNode().put("type", "string").put("format", "date-time")));
		ObjectNode messages = JSON.objectNode();
		messages.set("tokenExpiring", JSON.objectNode()
			.put("name", "token-expiring")
			.put("summary", "The connection's token expires soon (streamgate.security.token-expiring-notice before, "
					+ "30 s by default): fetch a fresh one and send it in a refresh message (WebSocket) or reconnect "
					+ "with it and the last event id (SSE); no id, so the resume cursor stays")
			.set("payload", ref("#/components/schemas/TokenExpiry")));
		messages.set("patch",
				JSON.objectNode()
					.put("name", "patch")
					.put("summary", "An RFC 6902 JSON Patch from the previous document to the next")
					.set("payload",
							JSON.objectNode()
								.put("type", "array")
								.set("items", ref("#/components/schemas/JsonPatchOperation"))));
		messages.set("problem", JSON.objectNode()
			.put("name", "problem")
			.put("summary", "An RFC 9457 problem: the publisher failed, a position expired, the topic was deleted")
			.put("contentType", "application/problem+json")
			.set("payload", ref("#/components/schemas/Problem")));
		return JSON.objectNode()
			.<ObjectNode>set("messages", messages)
			.<ObjectNode>set("schemas",
					JSON.objectNode()
						.<ObjectNode>set("JsonPatchOperation", operation)
						.<ObjectNode>set("Problem", problem)
						.set("TokenExpiry", expiring))
			.set("securitySchemes", securitySchemes());
	}

	/**
	 * Where a token goes: the Authorization header, or on streams and WebSockets (which a
	 * browser opens without headers) the query parameter or the cookie.
	 */
	private static ObjectNode securitySchemes() {
		return JSON.objectNode()
			.<ObjectNode>set("bearer",
					JSON.objectNode()
						.put("type", "http")
						.put("scheme", "bearer")
						.put("bearerFormat", "JWT")
						.put("description", "A JWT whose streamgate claim grants subscribe rights on the topic"))
			.<ObjectNode>set("accessToken",
					JSON.objectNode()
						.put("type", "httpApiKey")
						.put("name", "access_token")
						.put("in", "query")
						.put("description", "The same JWT as the access_token query parameter"))
			.set("cookie", JSON.objectNode()
				.put("type", "httpApiKey")
				.put("name", "streamgate_token")
				.put("in", "cookie")
				.put("description", "The same JWT as the streamgate_token cookie (WebSockets: from the gateway's "
						+ "own origin or one of streamgate.cors.allowed-origins)"));
	}

	private static ObjectNode server(URI uri, String protocol, String description) {
		ObjectNode server = JSON.objectNode()
			.put("host", uri.getRawAuthority())
			.put("protocol", protocol)
			.put("description", description);
		server.set("security",
				JSON.arrayNode()
					.add(ref("#/components/securitySchemes/bearer"))
					.add(ref("#/components/securitySchemes/accessToken"))
					.add(ref("#/components/securitySchemes/cookie")));
		return server;
	}

	/** The WebSocket endpoint: subscribe and unsubscribe messages in, events out. */
	private static ObjectNode webSocketChannel() {
		ObjectNode subscribe = JSON.objectNode().put("type", "object");
		subscribe.set("required", JSON.arrayNode().add("subscribe"));
		ObjectNode parameters = JSON.objectNode().put("type", "object");
		parameters.set("required", JSON.arrayNode().add("topic"));
		parameters.set("properties", JSON.objectNode()
			.<ObjectNode>set("topic", JSON.objectNode().put("type", "string"))
			.<ObjectNode>set("mode",
					JSON.objectNode()
						.put("type", "string")
						.set("enum", JSON.arrayNode().add("snapshot-patch").add("snapshot-only").add("event")))
			.<ObjectNode>set("lastEventId",
					JSON.objectNode().put("type", "string").put("description", "resume after this cursor, or earliest"))
			.<ObjectNode>set("types",
					JSON.objectNode().put("type", "array").set("items", JSON.objectNode().put("type", "string")))
			.<ObjectNode>set("filter", JSON.objectNode().put("type", "string"))
			.set("pointer", JSON.objectNode().put("type", "string")));
		subscribe.set("properties", JSON.objectNode().set("subscribe", parameters));
		ObjectNode unsubscribe = JSON.objectNode().put("type", "object");
		unsubscribe.set("required", JSON.arrayNode().add("unsubscribe"));
		unsubscribe.set("properties",
				JSON.objectNode()
					.set("unsubscribe", JSON.objectNode()
						.put("type", "object")
						.<ObjectNode>set("required", JSON.arrayNode().add("topic"))
						.set("properties", JSON.objectNode().set("topic", JSON.objectNode().put("type", "string")))));
		ObjectNode refresh = JSON.objectNode().put("type", "object");
		refresh.set("required", JSON.arrayNode().add("refresh"));
		refresh.set("properties",
				JSON.objectNode()
					.set("refresh", JSON.objectNode()
						.put("type", "object")
						.<ObjectNode>set("required", JSON.arrayNode().add("token"))
						.set("properties", JSON.objectNode().set("token", JSON.objectNode().put("type", "string")))));
		ObjectNode message = JSON.objectNode().put("type", "object");
		message.set("required", JSON.arrayNode().add("topic").add("type").add("data"));
		message.set("properties",
				JSON.objectNode()
					.<ObjectNode>set("topic", JSON.objectNode().put("type", "string"))
					.<ObjectNode>set("type",
							JSON.objectNode()
								.put("type", "string")
								.set("enum",
										JSON.arrayNode()
											.add("snapshot")
											.add("patch")
											.add("event")
											.add("problem")
											.add("token-expiring")
											.add("token-refreshed")))
					.<ObjectNode>set("eventType", JSON.objectNode().put("type", "string"))
					.<ObjectNode>set("id", JSON.objectNode().put("type", "string").put("description", "resume cursor"))
					.<ObjectNode>set("time",
							JSON.objectNode()
								.put("type", "string")
								.put("format", "date-time")
								.put("description", "when the event was published"))
					.set("data", JSON.objectNode()));
		ObjectNode messages = JSON.objectNode()
			.<ObjectNode>set("subscribe",
					JSON.objectNode()
						.put("name", "subscribe")
						.put("summary", "Subscribe to a topic; a refusal is a problem message, the connection stays")
						.set("payload", subscribe))
			.<ObjectNode>set("unsubscribe",
					JSON.objectNode()
						.put("name", "unsubscribe")
						.put("summary", "Stop receiving a topic")
						.set("payload", unsubscribe))
			.<ObjectNode>set("refresh", JSON.objectNode()
				.put("name", "refresh")
				.put("summary", "Replace the connection's token with a fresh one of the same subject, answered "
						+ "token-refreshed (its expiresAt); subscriptions it no longer grants end with a forbidden "
						+ "problem, a refused token is an unauthorized problem and the connection keeps its own")
				.set("payload", refresh))
			.<ObjectNode>set("message",
					JSON.objectNode()
						.put("name", "message")
						.put("summary", "One event of a subscribed topic (a snapshot, a patch, an event or a problem), "
								+ "or a message about the connection (topic null: token-expiring, token-refreshed, "
								+ "problem)")
						.set("payload", message))
			.<ObjectNode>set("problem", ref("#/components/messages/problem"))
			.set("tokenExpiring", ref("#/components/messages/tokenExpiring"));
		return JSON.objectNode()
			.put("address", "/api/v1/ws")
			.put("title", "WebSocket subscribers")
			.put("description",
					"Several topics on one connection. The server closes it with 4008 when it does not keep up, "
							+ "4401 when its token expires (refresh it before: token-expiring, then refresh) and 1001 "
							+ "when the node shuts down; resume with each topic's last id. Clients that offer "
							+ "permessage-deflate get every message compressed.")
			.<ObjectNode>set("servers", JSON.arrayNode().add(ref("#/servers/" + WS_SERVER)))
			.set("messages", messages);
	}

	private static ObjectNode ref(String pointer) {
		return JSON.objectNode().put("$ref", pointer);
	}

}
