package dev.streamgate.diagnostics;

import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.TracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.web.server.ServerWebExchange;

import dev.streamgate.core.trace.EventTracing;

/**
 * {@link EventTracing} with Micrometer Tracing (OpenTelemetry underneath): a publication
 * keeps the context of the HTTP server span of its request (the WebFlux observation, a
 * child of the caller's {@code traceparent}); a delivery, and the fan-out of an event on
 * a node, are spans of their own, children of the context the event was published in (a
 * delivery's context goes out in its headers); a poll is a trace of its own.
 * <p>
 * An event published in a trace that is not sampled (the {@code traceparent}'s flags say
 * so, as they do for most requests at the default sampling probability of 0.1) gets no
 * span: the sampler follows its parent, so the span would record nothing, and building it
 * was about a sixth of a streaming node's event tail. Its delivery carries the event's
 * own trace context on, not sampled either.
 */
final class MicrometerEventTracing implements EventTracing {

	private final Tracer tracer;

	private final Propagator propagator;

	MicrometerEventTracing(Tracer tracer, Propagator propagator) {
		this.tracer = tracer;
		this.propagator = propagator;
	}

	@Override
	public Map<String, String> publication(ServerWebExchange exchange) {
		return ServerRequestObservationContext.findCurrent(exchange.getAttributes())
			.map((context) -> context.<TracingObservationHandler.TracingContext>get(
					TracingObservationHandler.TracingContext.class))
			.map(TracingObservationHandler.TracingContext::getSpan)
			.map((span) -> inject(span.context()))
			.orElse(Map.of());
	}

	@Override
	public Span span(String name, Map<String, String> parentHeaders) {
		String parent = parentHeaders.get(TRACEPARENT);
		if (parent != null && !sampled(parent)) {
			return new Unsampled(parentHeaders);
		}
		io.micrometer.tracing.Span.Builder builder = parentHeaders.containsKey(TRACEPARENT)
				? this.propagator.extract(parentHeaders, Map::get) : this.tracer.spanBuilder().setNoParent();
		io.micrometer.tracing.Span span = builder.name(name).start();
		return new Span() {

			private Map<String, String> headers;

			// Made when asked for: a delivery sends them, a node's fan-out of an event
			// does not.
			@Override
			public Map<String, String> headers() {
				if (this.headers == null) {
					this.headers = inject(span.context());
				}
				return this.headers;
			}

			@Override
			public void end(String error) {
				if (error != null) {
					span.error(new DeliveryFailure(error));
				}
				span.end();
			}

		};
	}

	/**
	 * Whether a W3C {@code traceparent} ({@code version-traceid-parentid-flags}) has its
	 * sampled flag set; one that cannot be read counts as sampled, and is left to the
	 * propagator.
	 */
	static boolean sampled(String traceparent) {
		int dash = traceparent.lastIndexOf('-');
		if (dash < 0 || dash + 3 != traceparent.length()) {
			return true;
		}
		int flags = Character.digit(traceparent.charAt(dash + 2), 16);
		return flags < 0 || Character.digit(traceparent.charAt(dash + 1), 16) < 0 || (flags & 1) != 0;
	}

	private Map<String, String> inject(TraceContext context) {
		Map<String, String> headers = new LinkedHashMap<>(2);
		this.propagator.inject(context, headers, (carrier, key, value) -> {
			if (carrier != null && (TRACEPARENT.equals(key) || TRACESTATE.equals(key))) {
				carrier.put(key, value);
			}
		});
		return Map.copyOf(headers);
	}

	/** The span of an event in a trace that is not sampled: its parent's context. */
	private static final class Unsampled implements Span {

		private final Map<String, String> headers;

		Unsampled(Map<String, String> parentHeaders) {
			String state = parentHeaders.get(TRACESTATE);
			this.headers = (state != null) ? Map.of(TRACEPARENT, parentHeaders.get(TRACEPARENT), TRACESTATE, state)
					: Map.of(TRACEPARENT, parentHeaders.get(TRACEPARENT));
		}

		@Override
		public Map<String, String> headers() {
			return this.headers;
		}

		@Override
		public void end(String error) {
		}

	}

	/** Why a delivery failed, as the span's error. */
	private static final class DeliveryFailure extends RuntimeException {

		DeliveryFailure(String message) {
			super(message, null, false, false);
		}

	}

}
