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
 * child of the caller's {@code traceparent}); a delivery is a span of its own, a child of
 * the context its event was published in, whose context goes out in the delivery's
 * headers.
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
	public Span delivery(String name, Map<String, String> eventHeaders) {
		io.micrometer.tracing.Span.Builder builder = eventHeaders.containsKey(TRACEPARENT)
				? this.propagator.extract(eventHeaders, Map::get) : this.tracer.spanBuilder();
		io.micrometer.tracing.Span span = builder.name(name).kind(io.micrometer.tracing.Span.Kind.PRODUCER).start();
		Map<String, String> headers = inject(span.context());
		return new Span() {

			@Override
			public Map<String, String> headers() {
				return headers;
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

	private Map<String, String> inject(TraceContext context) {
		Map<String, String> headers = new LinkedHashMap<>(2);
		this.propagator.inject(context, headers, (carrier, key, value) -> {
			if (carrier != null && (TRACEPARENT.equals(key) || TRACESTATE.equals(key))) {
				carrier.put(key, value);
			}
		});
		return Map.copyOf(headers);
	}

	/** Why a delivery failed, as the span's error. */
	private static final class DeliveryFailure extends RuntimeException {

		DeliveryFailure(String message) {
			super(message, null, false, false);
		}

	}

}
