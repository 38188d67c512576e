package dev.streamgate.core.filter;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.cel.common.values.NullValue;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;

import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventAttributes;

/**
 * What a filter sees of an event, as CEL values: {@code data} (the event's JSON: maps,
 * lists, strings, 64-bit integers or doubles, booleans, null), {@code type} and
 * {@code key} (empty when the event has none), {@code headers} and {@code time} (when it
 * was published). Built once per event and shared by every filter that looks at it.
 */
public final class FilterVariables {

	private static final JsonFactory JSON = JsonFactory.builder().build();

	private FilterVariables() {
	}

	/**
	 * The variables of an event.
	 * @param topicId the event's topic
	 * @param event the event
	 * @return the variables, by name
	 */
	public static Map<String, Object> of(String topicId, Event event) {
		EventAttributes attributes = event.attributes();
		Map<String, Object> variables = new HashMap<>(8);
		variables.put("topic", topicId);
		variables.put("data", data(event.data()));
		variables.put("type", (attributes.type() != null) ? attributes.type() : "");
		variables.put("key", (attributes.key() != null) ? attributes.key() : "");
		variables.put("headers", attributes.headers());
		variables.put("time", event.publishedAt());
		return variables;
	}

	/**
	 * An event's JSON as CEL values; what is not JSON (it never is: publications are
	 * checked) is null.
	 */
	static Object data(byte[] json) {
		try (JsonParser parser = JSON.createParser(ObjectReadContext.empty(), json)) {
			JsonToken first = parser.nextToken();
			return (first != null) ? value(parser, first) : NullValue.NULL_VALUE;
		}
		catch (JacksonException ex) {
			return NullValue.NULL_VALUE;
		}
	}

	private static Object value(JsonParser parser, JsonToken token) {
		return switch (token) {
			case START_OBJECT -> {
				Map<String, Object> object = new HashMap<>();
				while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
					String name = parser.currentName();
					object.put(name, value(parser, parser.nextToken()));
				}
				yield object;
			}
			case START_ARRAY -> {
				List<Object> array = new ArrayList<>();
				for (JsonToken next = parser.nextToken(); next != JsonToken.END_ARRAY; next = parser.nextToken()) {
					array.add(value(parser, next));
				}
				yield array;
			}
			case VALUE_STRING -> parser.getString();
			// CEL's integers are 64-bit; a larger JSON integer is compared as a double.
			case VALUE_NUMBER_INT -> switch (parser.getNumberType()) {
				case INT, LONG -> parser.getLongValue();
				default -> parser.getDoubleValue();
			};
			case VALUE_NUMBER_FLOAT -> parser.getDoubleValue();
			case VALUE_TRUE -> Boolean.TRUE;
			case VALUE_FALSE -> Boolean.FALSE;
			default -> NullValue.NULL_VALUE;
		};
	}

}
