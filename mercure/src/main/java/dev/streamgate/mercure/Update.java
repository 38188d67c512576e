package dev.streamgate.mercure;

import java.nio.charset.StandardCharsets;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * A Mercure update as the hub keeps it: one event of the hub's topic, in JSON.
 *
 * @param id the id the publisher gave, or {@code null} for one the hub made of the
 * event's position
 * @param topics the topics: the first the canonical one, the others alternates that
 * selectors also match
 * @param data the content, or {@code null}
 * @param isPrivate whether only subscribers authorized for one of its topics receive it
 * @param type the SSE event type, or {@code null}
 * @param retry the reconnection time to send with it (ms), or {@code null}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Update(String id, List<String> topics, String data, @JsonProperty("private") boolean isPrivate,
		String type, Long retry) {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	byte[] json() {
		return MAPPER.writeValueAsBytes(this);
	}

	/**
	 * An update read back.
	 * @param json the event's data
	 * @return the update, or {@code null} when the event is none (written to the hub's
	 * topic by something else than the hub)
	 */
	static Update parse(byte[] json) {
		try {
			Update update = MAPPER.readValue(json, Update.class);
			return (update.topics() != null && !update.topics().isEmpty()) ? update : null;
		}
		catch (JacksonException ex) {
			return null;
		}
	}

	/**
	 * What a resume looks at of an update read back, its data skipped.
	 * @param json the event's data
	 * @return the heading, or {@code null} when the event is no update
	 */
	static Heading heading(byte[] json) {
		try {
			Heading heading = MAPPER.readValue(json, Heading.class);
			return (heading.topics() != null && !heading.topics().isEmpty()) ? heading : null;
		}
		catch (JacksonException ex) {
			return null;
		}
	}

	/**
	 * An update's id, topics and privacy: what a resume looks for among the kept updates.
	 *
	 * @param id the publisher's id, or {@code null}
	 * @param topics the topics
	 * @param isPrivate whether it is private
	 */
	@JsonIgnoreProperties(ignoreUnknown = true)
	record Heading(String id, List<String> topics, @JsonProperty("private") boolean isPrivate) {

		Heading withId(String id) {
			return new Heading(id, this.topics, this.isPrivate);
		}

	}

	/**
	 * The update as a Server-Sent Event: {@code id}, {@code event} and {@code retry} when
	 * given, then one {@code data} line for each line of the data (at least one, so that
	 * EventSource dispatches it).
	 * @param eventId the id it goes out with
	 * @return the UTF-8 frame, ending with a blank line
	 */
	byte[] frame(String eventId) {
		StringBuilder out = new StringBuilder(64 + ((this.data != null) ? this.data.length() : 0));
		out.append("id: ").append(eventId).append('\n');
		if (this.type != null) {
			out.append("event: ").append(this.type).append('\n');
		}
		if (this.retry != null) {
			out.append("retry: ").append(this.retry).append('\n');
		}
		String text = (this.data != null) ? this.data : "";
		int start = 0;
		for (int i = 0; i <= text.length(); i++) {
			char c = (i < text.length()) ? text.charAt(i) : '\n';
			if (c == '\n' || c == '\r') {
				out.append("data: ").append(text, start, i).append('\n');
				if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
					i++;
				}
				start = i + 1;
			}
		}
		out.append('\n');
		return out.toString().getBytes(StandardCharsets.UTF_8);
	}

}
