package dev.streamgate.core.filter;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import dev.streamgate.core.event.Event;
import dev.streamgate.core.event.EventAttributes;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class EventFilterTests {

	private static final Instant PUBLISHED = Instant.parse("2026-11-26T10:00:00Z");

	@Test
	void matchesOnTheDataTypeKeyHeadersTimeAndTopicOfAnEvent() {
		Event event = event(
				"{\"amount\":150.5,\"currency\":\"EUR\",\"lines\":[{\"sku\":\"a\"},{\"sku\":\"b\"}],\"n\":3}",
				new EventAttributes("order.created", "customer-42", Map.of("ce_source", "/shop")));
		assertThat(matches("data.amount > 100", event)).isTrue();
		assertThat(matches("data.amount > 200", event)).isFalse();
		// JSON has one number type: an integer compares with a double.
		assertThat(matches("data.n == 3.0 && data.n < 3.5", event)).isTrue();
		assertThat(matches("data.lines.exists(l, l.sku == 'b') && size(data.lines) == 2", event)).isTrue();
		assertThat(matches("type.startsWith('order.') && key == 'customer-42'", event)).isTrue();
		assertThat(matches("headers['ce_source'] == '/shop' && topic == 'orders'", event)).isTrue();
		assertThat(matches("time > timestamp('2026-11-26T09:59:59Z')", event)).isTrue();
		assertThat(matches("data.currency.matches('^E[A-Z]{2}$')", event)).isTrue();
	}

	@Test
	void anEventWithoutTypeOrKeyHasThemEmpty() {
		Event event = event("{\"a\":null}", EventAttributes.NONE);
		assertThat(matches("type == '' && key == '' && size(headers) == 0", event)).isTrue();
		assertThat(matches("data.a == null", event)).isTrue();
	}

	@Test
	void anEvaluationThatFailsDoesNotMatch() {
		Event event = event("{\"amount\":\"a lot\",\"items\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]}",
				EventAttributes.NONE);
		// A missing field, a type mismatch at run time.
		assertThat(matches("data.missing > 1", event)).isFalse();
		assertThat(matches("data.amount > 100", event)).isFalse();
		assertThat(matches("!has(data.missing)", event)).isTrue();
		// 20 x 20 iterations are within the budget; 20 x 20 x 20 are not.
		assertThat(matches("data.items.all(x, data.items.all(y, x + y > 0))", event)).isTrue();
		assertThat(matches("data.items.all(x, data.items.all(y, data.items.all(z, x + y + z > 0)))", event)).isFalse();
	}

	@Test
	void aBadExpressionIsAnInvalidFilterProblemNamingWhereItIsWrong() {
		assertThatExceptionOfType(StreamgateException.class)
			.isThrownBy(() -> EventFilter.compile("data.amount >", "filter"))
			.satisfies((ex) -> {
				assertThat(ex.problemType()).isEqualTo(ProblemType.INVALID_FILTER);
				assertThat(ex.getBody().getDetail()).contains("line 1, column 14");
				assertThat(ex.getBody().getProperties().get("errors"))
					.asInstanceOf(
							org.assertj.core.api.InstanceOfAssertFactories.list(StreamgateException.FieldError.class))
					.first()
					.satisfies((error) -> assertThat(error.pointer()).isEqualTo("filter"));
			});
		// Unknown variables, a result that is no boolean, nothing at all, too long.
		assertThat(invalid("amount > 1")).contains("undeclared reference to 'amount'");
		assertThat(invalid("data.amount + 1")).contains("line 1, column");
		assertThat(invalid("'yes'")).contains("expected type 'bool' but found 'string'");
		assertThat(invalid(" ")).contains("a filter is an expression");
		assertThat(invalid("true || ".repeat(300) + "true")).contains("at most 2048 characters");
	}

	@Test
	void subscribersOfTheSameExpressionShareOneFilterThatEvaluatesEachEventOnce() {
		EventFilter one = EventFilter.compile("data.amount > 100", "filter");
		EventFilter two = EventFilter.compile("data.amount > 100", "/filter");
		assertThat(two).isSameAs(one);
		Event event = event("{\"amount\":101}", EventAttributes.NONE);
		AtomicInteger made = new AtomicInteger();
		Supplier<Map<String, Object>> variables = () -> {
			made.incrementAndGet();
			return FilterVariables.of("orders", event);
		};
		for (int i = 0; i < 1000; i++) {
			assertThat(one.matches(event, variables)).isTrue();
		}
		assertThat(made).hasValue(1);
		Event next = event("{\"amount\":99}", EventAttributes.NONE);
		assertThat(two.matches(next, () -> FilterVariables.of("orders", next))).isFalse();
	}

	@Test
	void typesMatchNamesAndPatterns() {
		EventTypes types = EventTypes.of(List.of("order.*", "invoice.paid"), "types");
		assertThat(types.matches("order.created")).isTrue();
		assertThat(types.matches("order.")).isTrue();
		assertThat(types.matches("invoice.paid")).isTrue();
		assertThat(types.matches("invoice.paid.late")).isFalse();
		assertThat(types.matches("orders")).isFalse();
		assertThat(types.matches(null)).isFalse();
		assertThat(EventTypes.of(List.of("*"), "types").matches(null)).isTrue();
		assertThat(EventTypes.of(List.of("*.created"), "types").matches("user.created")).isTrue();
		assertThat(EventTypes.of(List.of("a*c"), "types").matches("a.b.c")).isTrue();
		// Regular expression characters are no patterns.
		assertThatExceptionOfType(StreamgateException.class).isThrownBy(() -> EventTypes.of(List.of("a(b"), "types"));
		assertThatExceptionOfType(StreamgateException.class)
			.isThrownBy(() -> EventTypes.of(EventTypes.split("a,,b"), "types"));
		assertThatExceptionOfType(StreamgateException.class).isThrownBy(() -> EventTypes.name("order.*"));
		assertThat(EventTypes.name("com.example.order:v1/created+x")).isEqualTo("com.example.order:v1/created+x");
	}

	@Test
	void aSelectionPassesProblemsAndSelectsEventsByTypeThenFilter() {
		Selection selection = Selection.of(List.of("order.*"), "data.amount > 100", "types", "filter");
		Event big = event("{\"amount\":101}", EventAttributes.of("order.created", null));
		Event bigInvoice = event("{\"amount\":101}", EventAttributes.of("invoice.paid", null));
		Event small = event("{\"amount\":1}", EventAttributes.of("order.created", null));
		Event problem = new Event(0, 9, EventType.PROBLEM, PUBLISHED, "{}".getBytes(StandardCharsets.UTF_8));
		assertThat(selection.accepts(big, () -> FilterVariables.of("orders", big))).isTrue();
		assertThat(selection.accepts(bigInvoice, () -> FilterVariables.of("orders", bigInvoice))).isFalse();
		assertThat(selection.accepts(small, () -> FilterVariables.of("orders", small))).isFalse();
		assertThat(selection.accepts(problem, () -> {
			throw new AssertionError("a problem is not filtered");
		})).isTrue();
		assertThat(Selection.of(null, null, "types", "filter")).isSameAs(Selection.ALL);
		assertThat(selection.types()).containsExactly("order.*");
		assertThat(selection.filter()).isEqualTo("data.amount > 100");
	}

	private static boolean matches(String expression, Event event) {
		return EventFilter.compile(expression, "filter").matches(event, () -> FilterVariables.of("orders", event));
	}

	private static String invalid(String expression) {
		try {
			EventFilter.compile(expression, "filter");
		}
		catch (StreamgateException ex) {
			assertThat(ex.problemType()).isEqualTo(ProblemType.INVALID_FILTER);
			return ex.getBody().getDetail();
		}
		throw new AssertionError("compiled: " + expression);
	}

	private static int offset;

	private static Event event(String json, EventAttributes attributes) {
		return new Event(0, offset++, EventType.EVENT, PUBLISHED, json.getBytes(StandardCharsets.UTF_8), attributes);
	}

}
