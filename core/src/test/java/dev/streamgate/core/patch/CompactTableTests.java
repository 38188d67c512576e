package dev.streamgate.core.patch;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.streamgate.support.RandomDocuments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Arrays of like objects are read as {@link CompactTable}s: they must behave exactly as
 * Parsson's arrays do (equality both ways, hash code, order, writing, diffs, patches,
 * pointers), whatever their columns hold, and stay tables through patches.
 */
class CompactTableTests {

	@ParameterizedTest
	@ValueSource(longs = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 })
	void listsOfRecordsReadDiffAndPatchAsParssonsDo(long seed) {
		RandomDocuments documents = new RandomDocuments(seed);
		JsonStructure parsson = documents.records(4 + (int) (seed * 7 % 60));
		boolean sawTable = false;
		for (int step = 0; step < 25; step++) {
			JsonStructure next = documents.mutate(parsson);
			JsonStructure compact = CompactJsonTests.readsDiffsAndPatchesAsParsson(parsson, next);
			sawTable |= compact.asJsonObject().get("items") instanceof CompactTable;
			parsson = next;
		}
		assertThat(sawTable).isTrue();
	}

	@Test
	void anArrayOfLikeObjectsIsATableWhoseElementsAreMadeWhenRead() {
		JsonArray items = read(
				"[{\"id\":1,\"v\":12345678901},{\"id\":2,\"v\":-7},{\"id\":3,\"v\":70000}," + "{\"id\":4,\"v\":0}]");
		assertThat(items).isInstanceOf(CompactTable.class).hasSize(4);
		JsonObject third = items.getJsonObject(2);
		assertThat(third).isInstanceOf(CompactObject.class).isEqualTo(items.get(2)).isNotSameAs(items.get(2));
		assertThat(third.getInt("v")).isEqualTo(70000);
		assertThat(items.getJsonObject(0).getJsonNumber("v").longValueExact()).isEqualTo(12345678901L);
		assertThat(items.getJsonObject(0).getJsonNumber("v").numberValue()).isEqualTo(12345678901L);
		assertThat(third.getJsonNumber("v").numberValue()).isEqualTo(70000);
		assertThat(items.getValuesAs(JsonObject.class)).extracting((item) -> item.getInt("id"))
			.containsExactly(1, 2, 3, 4);
		assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> items.get(4));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> items.add(JsonValue.NULL));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> items.remove(0));
	}

	@Test
	void arraysOfUnlikeOrFewObjectsStayArrays() {
		assertThat(read("[{\"a\":1},{\"a\":2},{\"a\":3}]")).isInstanceOf(CompactArray.class);
		assertThat(read("[{\"a\":1},{\"a\":2},{\"a\":3},{\"b\":4}]")).isInstanceOf(CompactArray.class);
		assertThat(read("[{\"a\":1,\"b\":2},{\"b\":2,\"a\":1},{\"a\":3,\"b\":4},{\"a\":5,\"b\":6}]"))
			.isInstanceOf(CompactArray.class);
		assertThat(read("[{},{},{},{}]")).isInstanceOf(CompactArray.class);
		assertThat(read("[{\"a\":1},{\"a\":2},{\"a\":3},4]")).isInstanceOf(CompactArray.class);
	}

	@Test
	void anElementThatBreaksTheRowsIsReadAsParssonReadsIt() {
		String rows = IntStream.range(0, 40)
			.mapToObj((i) -> "{\"id\":" + (i * 977) + ",\"v\":" + (i * 123456789L) + ",\"s\":\"r" + i + "\"}")
			.collect(Collectors.joining(","));
		List<String> breaks = List.of("{\"id\":1,\"v\":2}", "{\"id\":1,\"v\":2,\"s\":\"x\",\"t\":3}",
				"{\"id\":1,\"w\":2,\"s\":\"x\"}", "{\"v\":2,\"id\":1,\"s\":\"x\"}", "{}", "7", "null", "[{\"id\":1}]",
				"{\"id\":{\"id\":1,\"v\":2,\"s\":\"x\"},\"v\":2}");
		for (String unlike : breaks) {
			for (String json : List.of("[" + unlike + "," + rows + "]", "[" + rows + "," + unlike + "]",
					"[" + rows + "," + unlike + "," + rows + "]", "[{\"id\":0,\"v\":0,\"s\":\"\"}," + unlike + "]")) {
				JsonArray compact = read(json);
				JsonArray parsson = Json.createReader(new StringReader(json)).readArray();
				assertThat(compact).as(json)
					.isInstanceOf(CompactArray.class)
					.isEqualTo(parsson)
					.hasSameHashCodeAs(parsson);
				assertThat(parsson).as(json).isEqualTo(compact);
				assertThat(compact.toString()).as(json).isEqualTo(parsson.toString());
			}
		}
		// Rows whose columns change kind after the first rows, read past the first room
		// made.
		String kinds = "[" + rows + ",{\"id\":1.5,\"v\":99999999999999999999,\"s\":7}," + rows + "]";
		JsonArray table = read(kinds);
		JsonArray parsson = Json.createReader(new StringReader(kinds)).readArray();
		assertThat(table).isInstanceOf(CompactTable.class).hasSize(81).isEqualTo(parsson).hasSameHashCodeAs(parsson);
		assertThat(table.toString()).isEqualTo(parsson.toString());
		// A name twice in stored JSON (read without the duplicate check): the last value
		// wins.
		String twice = "[" + rows + ",{\"id\":1,\"v\":2,\"s\":\"x\",\"s\":\"y\"}]";
		assertThat(JsonPatches.readStored(twice.getBytes(StandardCharsets.UTF_8)))
			.isEqualTo(Json.createReader(new StringReader(twice)).readArray());
		assertThatIllegalArgumentException().isThrownBy(() -> read(twice));
	}

	@Test
	void rowsDiffedByColumnGiveParssonsPatchNamesEscapedAndNestedValuesDiffed() {
		String json = "[{\"a/b\":1,\"c~d\":\"x\",\"n\":{\"k\":[1,2]}},{\"a/b\":2,\"c~d\":\"y\",\"n\":{\"k\":[3]}},"
				+ "{\"a/b\":3,\"c~d\":\"z\",\"n\":null},{\"a/b\":4,\"c~d\":\"w\",\"n\":{}},"
				+ "{\"a/b\":5,\"c~d\":\"v\",\"n\":1},".repeat(4).replaceAll(",$", "]");
		String next = json.replace("\"a/b\":2", "\"a/b\":20")
			.replace("\"z\"", "\"zz\"")
			.replace("[1,2]", "[1,5]")
			.replace("\"n\":{}", "\"n\":{\"k\":1}");
		JsonArray patch = JsonPatches.diff(read(json), read(next));
		assertThat(read(json)).isInstanceOf(CompactTable.class);
		assertThat(patch).isEqualTo(JsonPatches.diff(Json.createReader(new StringReader(json)).readArray(),
				Json.createReader(new StringReader(next)).readArray()));
		assertThat(patch.toString()).contains("/1/a~1b", "/2/c~0d", "/0/n/k/1", "/3/n/k");
	}

	@Test
	void columnsOfMixedValuesKeepEachValueAsRead() {
		String json = "[{\"n\":1,\"x\":\"a\"},{\"n\":1.0,\"x\":2},{\"n\":null,\"x\":[1,{\"k\":true}]},"
				+ "{\"n\":99999999999999999999,\"x\":{\"y\":false}}]";
		JsonArray compact = read(json);
		JsonArray parsson = Json.createReader(new StringReader(json)).readArray();
		assertThat(compact).isInstanceOf(CompactTable.class).isEqualTo(parsson).hasSameHashCodeAs(parsson);
		assertThat(parsson).isEqualTo(compact);
		assertThat(compact.toString()).isEqualTo(parsson.toString());
		// 1 and 1.0 differ, as BigDecimal says, in a column and across two tables.
		JsonArray integers = read(json.replace("1.0", "1"));
		assertThat(integers).isInstanceOf(CompactTable.class).isNotEqualTo(compact);
		assertThat(compact).isNotEqualTo(integers);
		assertThat(JsonPatches.diff(compact, integers)).isEqualTo(
				JsonPatches.diff(parsson, Json.createReader(new StringReader(json.replace("1.0", "1"))).readArray()));
	}

	@Test
	void tablesOfTheSameValuesAreEqualToArraysOfThemAndParssonsEitherWay() {
		String json = "[{\"id\":1,\"s\":\"a\"},{\"id\":2,\"s\":\"b\"},{\"id\":3,\"s\":\"c\"},{\"id\":4,\"s\":\"d\"}]";
		JsonArray table = read(json);
		List<JsonValue> elements = new ArrayList<>(table);
		JsonArray array = Json.createArrayBuilder(elements).build();
		assertThat(table).isEqualTo(array).hasSameHashCodeAs(array);
		assertThat(array).isEqualTo(table);
		assertThat(table).isNotEqualTo(read(json.replace("\"d\"", "\"e\"")));
		assertThat(table).isNotEqualTo(read(json.replace("\"s\"", "\"t\"")));
		// A column of integers against one of other values.
		JsonArray integers = read("[{\"n\":1},{\"n\":2},{\"n\":3},{\"n\":4}]");
		assertThat(integers).isEqualTo(read("[{\"n\":1},{\"n\":2},{\"n\":3},{\"n\":4}]"))
			.isNotEqualTo(read("[{\"n\":1},{\"n\":2},{\"n\":3},{\"n\":\"4\"}]"))
			.isNotEqualTo(read("[{\"n\":1},{\"n\":2},{\"n\":3},{\"n\":4.0}]"));
		assertThat(read("[{\"n\":1},{\"n\":2},{\"n\":3},{\"n\":4.0}]")).isNotEqualTo(integers);
	}

	@Test
	void patchesThatChangeAddAndRemoveRecordsGiveParssonsResult() {
		String json = "{\"items\":[{\"id\":1,\"v\":10},{\"id\":2,\"v\":20},{\"id\":3,\"v\":30},{\"id\":4,\"v\":40}]}";
		JsonStructure compact = (JsonStructure) JsonPatches.read(json.getBytes(StandardCharsets.UTF_8));
		JsonStructure parsson = Json.createReader(new StringReader(json)).read();
		// Read as the patches of a topic's log are.
		JsonArray patch = read("[{\"op\":\"replace\",\"path\":\"/items/1/v\",\"value\":21},"
				+ "{\"op\":\"add\",\"path\":\"/items/-\",\"value\":{\"id\":5,\"v\":50}},"
				+ "{\"op\":\"remove\",\"path\":\"/items/0\"},"
				+ "{\"op\":\"copy\",\"from\":\"/items/0/v\",\"path\":\"/items/2/w\"}]");
		JsonStructure patched = JsonPatches.apply(compact, patch);
		assertThat(patched).isEqualTo(Json.createPatch(patch).apply(parsson));
		assertThat(patched.asJsonObject().get("items")).isInstanceOf(CompactArray.class);
		JsonStructure undone = JsonPatches.apply(patched, read("[{\"op\":\"remove\",\"path\":\"/items/2/w\"}]"));
		assertThat(undone.asJsonObject().get("items")).isInstanceOf(CompactTable.class);
		assertThat(Json.createPointer("/items/1/v").getValue(compact)).isEqualTo(Json.createValue(20));
	}

	private static JsonArray read(String json) {
		return (JsonArray) JsonPatches.read(json.getBytes(StandardCharsets.UTF_8));
	}

	private static JsonStructure read(JsonStructure document) {
		return (JsonStructure) JsonPatches.read(document.toString().getBytes(StandardCharsets.UTF_8));
	}

}
