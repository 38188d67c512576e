import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;

import dev.streamgate.core.patch.JsonPatches;

/**
 * Heap a polled document takes once read (gatling/bin/document-heap): documents shaped like the mock
 * source's (an array of {"id":i,"value":v} of SIZE bytes in all), COUNT of them kept, heap used after
 * full collections divided by COUNT; read as streamgate reads them (JsonPatches.read) and as it read
 * them before compact values (Jackson's parser into Parsson's builders). Then the time reading such
 * a document takes, on one thread, and diffing, writing and applying the patch to its next version
 * (a fifth of its values renewed, as the mock source renews them), and the patch written as it is
 * found (JsonPatches.writeDiff, what a poller publishes).
 */
public class DocumentHeap {

	private static final JsonProvider PARSSON = JsonProvider.provider();

	public static void main(String[] args) {
		int size = Integer.parseInt(args[0]);
		int count = Integer.parseInt(args[1]);
		byte[] json = document(size).getBytes(java.nio.charset.StandardCharsets.UTF_8);
		System.out.printf("document of %d bytes, %d kept%n", json.length, count);
		measure("compact (JsonPatches.read)", count, () -> JsonPatches.read(json));
		measure("Parsson builders (before)", count, () -> parsson(json));
		// The CPU a poller spends reading each polled document.
		time("read (JsonPatches.read)", () -> JsonPatches.read(json));
		// The next version, a fifth of its values renewed as the mock source renews them: the
		// patch a poller makes and writes, and a reader that is not the publisher applies.
		JsonStructure from = (JsonStructure) JsonPatches.read(json);
		JsonStructure to = (JsonStructure) JsonPatches.read(next(size).getBytes(StandardCharsets.UTF_8));
		JsonArray patch = JsonPatches.diff(from, to);
		System.out.printf("patch to the next version: %d operations, %d bytes%n", patch.size(),
				JsonPatches.write(patch).length);
		time("diff (JsonPatches.diff)", () -> JsonPatches.diff(from, to));
		time("write the patch", () -> JsonPatches.write(patch));
		// What a poller does: the patch written as it is found.
		time("diff written (writeDiff)", () -> JsonPatches.writeDiff(from, to));
		time("apply (JsonPatches.apply)", () -> JsonPatches.apply(from, patch));
		time("apply (Parsson's JsonPatch)", () -> PARSSON.createPatch(patch).apply(from));
	}

	/** The version after the first, with a fifth of the values renewed. */
	private static String next(int size) {
		long[] values = values(size);
		SplittableRandom random = new SplittableRandom(2);
		for (int i = 0; i < Math.round(values.length * 0.2); i++) {
			values[random.nextInt(values.length)] = random.nextLong(1_000_000_000L);
		}
		return json(values, 2);
	}

	/** Microseconds per call: the median of 9 rounds of 500 calls, after 3,000 to warm up. */
	private static void time(String name, java.util.function.Supplier<Object> call) {
		Object sink = null;
		for (int i = 0; i < 3000; i++) {
			sink = call.get();
		}
		long[] rounds = new long[9];
		for (int round = 0; round < rounds.length; round++) {
			long start = System.nanoTime();
			for (int i = 0; i < 500; i++) {
				sink = call.get();
			}
			rounds[round] = (System.nanoTime() - start) / 500;
		}
		java.util.Arrays.sort(rounds);
		System.out.printf("%-28s %6.1f us per call (rounds %.1f to %.1f; %s)%n", name, rounds[4] / 1000.0,
				rounds[0] / 1000.0, rounds[8] / 1000.0, (sink != null) ? "done" : "none");
	}

	private static void measure(String name, int count, java.util.function.Supplier<Object> read) {
		for (int i = 0; i < 50; i++) {
			read.get();
		}
		List<Object> kept = new ArrayList<>();
		long before = used();
		for (int i = 0; i < count; i++) {
			kept.add(read.get());
		}
		long after = used();
		System.out.printf("%-28s %6d KiB per document%n", name, (after - before) / count / 1024);
		kept.clear();
	}

	private static String document(int size) {
		return json(values(size), 1);
	}

	private static long[] values(int size) {
		SplittableRandom random = new SplittableRandom(1);
		long[] values = new long[size / 30];
		for (int i = 0; i < values.length; i++) {
			values[i] = random.nextLong(1_000_000_000L);
		}
		return values;
	}

	private static String json(long[] values, int version) {
		StringBuilder json = new StringBuilder("{\"generatedAt\":1764190000000,\"version\":" + version + ",\"items\":[");
		for (int i = 0; i < values.length; i++) {
			json.append((i > 0) ? "," : "").append("{\"id\":").append(i).append(",\"value\":").append(values[i]).append('}');
		}
		return json.append("]}").toString();
	}

	private static long used() {
		for (int i = 0; i < 4; i++) {
			System.gc();
		}
		return Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
	}

	private static JsonValue parsson(byte[] json) {
		try (JsonParser parser = new JsonFactory().createParser(ObjectReadContext.empty(), json)) {
			return value(parser, parser.nextToken());
		}
	}

	private static JsonValue value(JsonParser parser, JsonToken token) {
		return switch (token) {
			case START_OBJECT -> {
				JsonObjectBuilder object = PARSSON.createObjectBuilder();
				while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
					String name = parser.currentName();
					object.add(name, value(parser, parser.nextToken()));
				}
				yield object.build();
			}
			case START_ARRAY -> {
				JsonArrayBuilder array = PARSSON.createArrayBuilder();
				for (JsonToken next = parser.nextToken(); next != JsonToken.END_ARRAY; next = parser.nextToken()) {
					array.add(value(parser, next));
				}
				yield array.build();
			}
			case VALUE_NUMBER_INT -> switch (parser.getNumberType()) {
				case INT -> PARSSON.createValue(parser.getIntValue());
				case LONG -> PARSSON.createValue(parser.getLongValue());
				default -> PARSSON.createValue(parser.getBigIntegerValue());
			};
			case VALUE_STRING -> PARSSON.createValue(parser.getString());
			default -> throw new IllegalArgumentException("the mock document has no " + token);
		};
	}

}
