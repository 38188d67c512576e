package dev.streamgate.core.patch;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.streamgate.support.RandomDocuments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link PatchApplier} against Parsson's {@code JsonPatch}, the implementation it
 * replaces: on random documents and random patches, valid and not, both fail or both give
 * the same document, members in the same order.
 */
class PatchApplierTests {

	@ParameterizedTest
	@ValueSource(longs = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 })
	void randomPatchesGiveParssonsDocumentsOrFailAsItDoes(long seed) {
		RandomDocuments documents = new RandomDocuments(seed);
		Random random = new Random(seed);
		int failures = 0;
		for (int round = 0; round < 100; round++) {
			JsonStructure built = documents.document(round % 4 == 0);
			// Compact values as read, and Parsson's as built.
			JsonStructure document = (round % 2 == 0) ? read(built) : built;
			JsonArray patch = randomPatch(document, random, 1 + random.nextInt(6));
			JsonStructure theirs;
			try {
				theirs = Json.createPatch(patch).apply(document);
			}
			catch (JsonException ex) {
				theirs = null;
				failures++;
			}
			if (theirs == null && prefixQuirk(patch)) {
				continue;
			}
			if (theirs == null) {
				assertThatExceptionOfType(JsonException.class).as("seed %d round %d: %s", seed, round, patch)
					.isThrownBy(() -> PatchApplier.apply(document, patch));
			}
			else {
				JsonStructure ours = PatchApplier.apply(document, patch);
				assertThat(ours).as("seed %d round %d: %s", seed, round, patch).isEqualTo(theirs);
				// The same members in the same order.
				assertThat(new String(JsonPatches.write(ours), StandardCharsets.UTF_8))
					.as("seed %d round %d", seed, round)
					.isEqualTo(new String(JsonPatches.write(theirs), StandardCharsets.UTF_8));
			}
		}
		// Both kinds are exercised.
		assertThat(failures).isBetween(10, 90);
	}

	@Test
	void manyChangesInALongArrayRebuildTheDocumentAndLeaveTheOriginalAsItWas() {
		JsonArrayBuilder before = Json.createArrayBuilder();
		JsonArrayBuilder after = Json.createArrayBuilder();
		for (int i = 0; i < 1706; i++) {
			before.add(Json.createObjectBuilder().add("id", i).add("value", i));
			after.add(Json.createObjectBuilder().add("id", i).add("value", (i % 5 == 0) ? -i - 1 : i));
		}
		JsonStructure from = read(Json.createObjectBuilder().add("version", 1).add("items", before).build());
		JsonStructure to = read(Json.createObjectBuilder().add("version", 2).add("items", after).build());
		String original = from.toString();
		JsonArray patch = JsonPatches.diff(from, to);
		assertThat(patch).hasSize(1 + 342);
		JsonStructure applied = PatchApplier.apply(from, patch);
		assertThat(applied).isEqualTo(to).isEqualTo(Json.createPatch(patch).apply(from));
		assertThat(from.toString()).isEqualTo(original);
		// Objects whose names did not change keep their shape.
		assertThat(((CompactObject) applied.asJsonObject().getJsonArray("items").get(5)).shape())
			.isSameAs(((CompactObject) from.asJsonObject().getJsonArray("items").get(5)).shape());
	}

	@Test
	void aReplacedMemberStaysInPlaceAndAnAddedOneGoesLast() {
		JsonStructure document = read(Json.createObjectBuilder().add("a", 1).add("b", 2).add("c", 3).build());
		JsonStructure applied = PatchApplier.apply(document,
				patch("[{\"op\":\"replace\",\"path\":\"/a\",\"value\":9},{\"op\":\"add\",\"path\":\"/d\",\"value\":4},"
						+ "{\"op\":\"add\",\"path\":\"/b\",\"value\":8}]"));
		assertThat(applied).hasToString("{\"a\":9,\"b\":8,\"c\":3,\"d\":4}");
	}

	@Test
	void aValueCopiedAndThenChangedInPlaceKeepsTheCopyAsItWas() {
		JsonStructure document = read(Json.createObjectBuilder()
			.add("a", Json.createObjectBuilder().add("list", Json.createArrayBuilder().add(1)))
			.build());
		JsonArray patch = patch("[{\"op\":\"add\",\"path\":\"/a/list/-\",\"value\":2},"
				+ "{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/b\"},{\"op\":\"add\",\"path\":\"/a/list/0\",\"value\":0},"
				+ "{\"op\":\"move\",\"from\":\"/b/list\",\"path\":\"/c\"},{\"op\":\"test\",\"path\":\"/c\",\"value\":[1,2]}]");
		JsonStructure applied = PatchApplier.apply(document, patch);
		assertThat(applied).hasToString("{\"a\":{\"list\":[0,1,2]},\"b\":{},\"c\":[1,2]}")
			.isEqualTo(Json.createPatch(patch).apply(document));
	}

	@Test
	void parssonsQuirksAreKept() {
		JsonStructure document = read(
				Json.createObjectBuilder().add("a", Json.createArrayBuilder().add(1).add(2)).add("x~y", 1).build());
		for (String operations : List.of("[{\"op\":\"add\",\"path\":\"/a/01\",\"value\":9}]",
				"[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a\"}]", "[{\"op\":\"remove\",\"path\":\"/x~y\"}]",
				"[{\"op\":\"add\",\"path\":\"\",\"value\":[1]}]", "[{\"op\":\"add\",\"path\":\"/a/-\",\"value\":3}]")) {
			JsonArray patch = patch(operations);
			assertThat(PatchApplier.apply(document, patch)).as(operations)
				.isEqualTo(Json.createPatch(patch).apply(document));
		}
		for (String operations : List.of("[{\"op\":\"remove\",\"path\":\"\"}]",
				"[{\"op\":\"replace\",\"path\":\"\",\"value\":5}]", "[{\"op\":\"remove\",\"path\":\"/a/-\"}]",
				"[{\"op\":\"add\",\"path\":\"/a/3\",\"value\":9}]", "[{\"op\":\"add\",\"path\":\"/a/+1\",\"value\":9}]",
				"[{\"op\":\"add\",\"path\":\"/a/99999999999\",\"value\":9}]",
				"[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a/0\"}]",
				"[{\"op\":\"add\",\"path\":\"/x~0y/q\",\"value\":9}]",
				"[{\"op\":\"test\",\"path\":\"/a/0\",\"value\":1.0}]", "[{\"op\":\"nope\",\"path\":\"/a\"}]",
				"[{\"path\":\"/a\"}]", "[{\"op\":\"add\",\"path\":\"/b\"}]", "[5]",
				"[{\"op\":\"add\",\"path\":\"a\",\"value\":1}]", "[{\"op\":\"add\",\"path\":5,\"value\":1}]")) {
			JsonArray patch = patch(operations);
			assertThatExceptionOfType(JsonException.class).as(operations)
				.isThrownBy(() -> PatchApplier.apply(document, patch));
		}
	}

	/**
	 * Operations on paths taken from the document (existing members and elements, places
	 * to add at), a fifth of them made wrong (a missing name, an index past the end, a
	 * step into a value that is no container).
	 */
	private static JsonArray randomPatch(JsonStructure document, Random random, int size) {
		List<String> paths = new ArrayList<>();
		List<String> containers = new ArrayList<>();
		collect(document, "", paths, containers);
		JsonArrayBuilder patch = Json.createArrayBuilder();
		String[] ops = { "add", "remove", "replace", "move", "copy", "test" };
		for (int i = 0; i < size; i++) {
			String op = ops[random.nextInt(ops.length)];
			String existing = paths.get(random.nextInt(paths.size()));
			String target = op.equals("add") || op.equals("move") || op.equals("copy")
					? place(containers.get(random.nextInt(containers.size())), document, random) : existing;
			if (random.nextInt(5) == 0) {
				target = wrong(target, random);
			}
			JsonObjectBuilder operation = Json.createObjectBuilder().add("op", op).add("path", target);
			switch (op) {
				case "add", "replace" -> operation.add("value", new RandomDocuments(random.nextLong()).document(false));
				case "move", "copy" -> operation.add("from", paths.get(random.nextInt(paths.size())));
				case "test" -> operation.add("value",
						random.nextBoolean() ? value(document, existing) : Json.createValue(random.nextInt(3)));
				default -> {
				}
			}
			patch.add(operation);
		}
		return patch.build();
	}

	/**
	 * Parsson refuses to move a value to a path that merely starts with the same
	 * characters ({@code /n} to {@code /new0}); RFC 6902 forbids only moving it into
	 * itself, and so does the applier.
	 */
	private static boolean prefixQuirk(JsonArray patch) {
		return patch.stream().map(JsonValue::asJsonObject).anyMatch((operation) -> {
			String from = operation.getString("from", null);
			String path = operation.getString("path");
			return "move".equals(operation.getString("op")) && from != null && !from.isEmpty() && path.startsWith(from)
					&& !path.equals(from) && !path.startsWith(from + "/");
		});
	}

	private static void collect(JsonValue value, String path, List<String> paths, List<String> containers) {
		paths.add(path);
		if (value instanceof JsonObject object) {
			containers.add(path);
			for (Map.Entry<String, JsonValue> member : object.entrySet()) {
				collect(member.getValue(), path + "/" + member.getKey().replace("~", "~0").replace("/", "~1"), paths,
						containers);
			}
		}
		else if (value instanceof JsonArray array) {
			containers.add(path);
			for (int i = 0; i < array.size(); i++) {
				collect(array.get(i), path + "/" + i, paths, containers);
			}
		}
	}

	/** A place to add at in a container: a new or existing name, an index, or "-". */
	private static String place(String container, JsonStructure document, Random random) {
		JsonValue value = value(document, container);
		if (value instanceof JsonArray array) {
			return container + "/" + (random.nextInt(4) == 0 ? "-" : String.valueOf(random.nextInt(array.size() + 1)));
		}
		return container + "/" + (random.nextBoolean() ? "new" + random.nextInt(3) : "a");
	}

	private static String wrong(String path, Random random) {
		return switch (random.nextInt(4)) {
			case 0 -> path + "/missing/deeper";
			case 1 -> path + "/999";
			case 2 -> path + "/-";
			default -> path.isEmpty() ? "nope" : path + "0";
		};
	}

	private static JsonValue value(JsonStructure document, String pointer) {
		return pointer.isEmpty() ? document : Json.createPointer(pointer).getValue(document);
	}

	private static JsonStructure read(JsonStructure built) {
		return (JsonStructure) JsonPatches.read(built.toString().getBytes(StandardCharsets.UTF_8));
	}

	private static JsonArray patch(String json) {
		try (var reader = Json.createReader(new StringReader(json))) {
			return reader.readArray();
		}
	}

}
