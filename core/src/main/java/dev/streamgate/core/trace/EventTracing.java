package dev.streamgate.core.trace;

import java.util.Map;

import org.springframework.web.server.ServerWebExchange;

/**
 * W3C trace context along an event's way: the trace of the request that published it is
 * kept in its Kafka record ({@code traceparent}, {@code tracestate} headers), and each
 * delivery of it is a span in that trace whose context goes out with the delivery. The
 * gateway implements it with Micrometer Tracing; without a tracer nothing is traced and
 * nothing is added.
 */
public interface EventTracing {

	/** The trace context headers, by the W3C names. */
	String TRACEPARENT = "traceparent";

	/** The vendor part of the trace context. */
	String TRACESTATE = "tracestate";

	/** Traces nothing. */
	EventTracing NONE = new EventTracing() {

		@Override
		public Map<String, String> publication(ServerWebExchange exchange) {
			return Map.of();
		}

		@Override
		public Span span(String name, Map<String, String> parentHeaders) {
			return Span.NONE;
		}

	};

	/**
	 * The trace context to keep with what a request publishes: its own span's, a child of
	 * the caller's {@code traceparent} when it sent one.
	 * @param exchange the publish request
	 * @return the {@code traceparent} (and {@code tracestate}) headers, or none
	 */
	Map<String, String> publication(ServerWebExchange exchange);

	/**
	 * Starts a span: a delivery of an event, the fan-out of an event, a poll.
	 * @param name the span's name
	 * @param parentHeaders headers with the trace context it belongs to (an event's), or
	 * none for a trace of its own
	 * @return the started span
	 */
	Span span(String name, Map<String, String> parentHeaders);

	/** A span under way. */
	interface Span {

		/** No span. */
		Span NONE = new Span() {

			@Override
			public Map<String, String> headers() {
				return Map.of();
			}

			@Override
			public void end(String error) {
			}

		};

		/**
		 * Its context, to send with the delivery.
		 * @return the {@code traceparent} (and {@code tracestate}) headers
		 */
		Map<String, String> headers();

		/**
		 * Ends it.
		 * @param error why the delivery failed, or {@code null} when it succeeded
		 */
		void end(String error);

	}

}
