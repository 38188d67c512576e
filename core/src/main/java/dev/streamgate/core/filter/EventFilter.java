package dev.streamgate.core.filter;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelIssue;
import dev.cel.common.CelOptions;
import dev.cel.common.CelSourceLocation;
import dev.cel.common.CelValidationException;
import dev.cel.common.CelValidationResult;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;

import dev.streamgate.core.event.Event;
import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;

/**
 * A subscriber's filter: a CEL expression over an event that must be true for the event
 * to be delivered, e.g. {@code data.price > 100.0 && type.startsWith("order.")}. The
 * variables are {@code data}, {@code type}, {@code key}, {@code headers}, {@code time}
 * and {@code topic} ({@link FilterVariables}).
 * <p>
 * Compiled and type-checked once: subscribers with the same expression share one
 * instance, and an event is evaluated once per instance however many subscribers it has
 * (the verdict on the last event is kept, the way webhook envelopes are). The cost of one
 * evaluation is bounded: the expression's length, the nesting of its parse, and the
 * iterations of its comprehensions ({@code all}, {@code exists}, {@code map},
 * {@code filter}) over all of them together; CEL has no loops, and its regular
 * expressions (RE2) run in linear time. An evaluation that fails (a missing field, a
 * budget exceeded, a type mismatch at run time) does not match.
 */
public final class EventFilter {

	/** The longest expression, in code points. */
	public static final int MAX_LENGTH = 2048;

	/** The iterations of all the comprehensions of one evaluation together. */
	public static final int MAX_ITERATIONS = 1000;

	private static final Cel CEL = CelFactory.standardCelBuilder()
		.setOptions(CelOptions.current()
			// JSON has one number type: 3 and 3.0 compare as numbers do.
			.enableHeterogeneousNumericComparisons(true)
			.comprehensionMaxIterations(MAX_ITERATIONS)
			.maxExpressionCodePointSize(MAX_LENGTH)
			.maxParseRecursionDepth(64)
			.build())
		.setStandardMacros(CelStandardMacro.STANDARD_MACROS)
		.addVar("data", SimpleType.DYN)
		.addVar("type", SimpleType.STRING)
		.addVar("key", SimpleType.STRING)
		.addVar("headers", MapType.create(SimpleType.STRING, SimpleType.STRING))
		.addVar("time", SimpleType.TIMESTAMP)
		.addVar("topic", SimpleType.STRING)
		.setResultType(SimpleType.BOOL)
		.build();

	/** Subscribers of the same expression share its compiled form while any holds it. */
	private static final Cache<String, EventFilter> COMPILED = Caffeine.newBuilder()
		.weakValues()
		.expireAfterAccess(Duration.ofHours(1))
		.build();

	private final String expression;

	private final CelRuntime.Program program;

	/** The last event evaluated and whether it matched. */
	private volatile Verdict last;

	private EventFilter(String expression, CelRuntime.Program program) {
		this.expression = expression;
		this.program = program;
	}

	/**
	 * Compiles an expression, or finds it compiled.
	 * @param expression the CEL expression
	 * @param pointer where the expression is in the request, for the problem: a JSON
	 * pointer into the body or a query parameter's name
	 * @return the filter
	 * @throws StreamgateException (400 invalid-filter) naming the line and column of each
	 * error
	 */
	public static EventFilter compile(String expression, String pointer) {
		if (expression.isBlank()) {
			throw invalid(pointer, List.of("a filter is an expression, e.g. data.price > 100.0"));
		}
		if (expression.codePointCount(0, expression.length()) > MAX_LENGTH) {
			throw invalid(pointer, List.of("a filter has at most " + MAX_LENGTH + " characters"));
		}
		EventFilter known = COMPILED.getIfPresent(expression);
		if (known != null) {
			return known;
		}
		CelValidationResult result = CEL.compile(expression);
		if (result.hasError()) {
			throw invalid(pointer, result.getErrors().stream().map(EventFilter::describe).toList());
		}
		try {
			CelAbstractSyntaxTree ast = result.getAst();
			return COMPILED.get(expression, (text) -> program(text, ast));
		}
		catch (CelValidationException ex) {
			throw invalid(pointer, List.of(ex.getMessage()));
		}
	}

	private static EventFilter program(String expression, CelAbstractSyntaxTree ast) {
		try {
			return new EventFilter(expression, CEL.createProgram(ast));
		}
		catch (CelEvaluationException ex) {
			throw new IllegalStateException("A checked expression has no program: " + expression, ex);
		}
	}

	private static String describe(CelIssue issue) {
		CelSourceLocation location = issue.getSourceLocation();
		if (location.getLine() < 1) {
			return issue.getMessage();
		}
		// CEL counts columns from 0.
		return "line " + location.getLine() + ", column " + (location.getColumn() + 1) + ": " + issue.getMessage();
	}

	private static StreamgateException invalid(String pointer, List<String> errors) {
		return new StreamgateException(ProblemType.INVALID_FILTER,
				"The filter is no valid CEL expression over data, type, key, headers, time and topic: "
						+ String.join("; ", errors))
			.withErrors(errors.stream().map((error) -> new StreamgateException.FieldError(pointer, error)).toList());
	}

	public String expression() {
		return this.expression;
	}

	/**
	 * Whether an event matches.
	 * @param event the event
	 * @param variables what the filter sees of it, made at most once for all filters
	 * @return true when the expression is true for it
	 */
	public boolean matches(Event event, Supplier<Map<String, Object>> variables) {
		Verdict known = this.last;
		if (known != null && known.event() == event) {
			return known.matches();
		}
		boolean matches;
		try {
			matches = Boolean.TRUE.equals(this.program.eval(variables.get()));
		}
		catch (CelEvaluationException ex) {
			matches = false;
		}
		this.last = new Verdict(event, matches);
		return matches;
	}

	@Override
	public String toString() {
		return this.expression;
	}

	private record Verdict(Event event, boolean matches) {
	}

}
