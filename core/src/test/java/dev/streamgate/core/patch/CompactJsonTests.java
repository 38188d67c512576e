package dev.streamgate.core.patch;

import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
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
 * Documents read by {@link JsonPatches} are {@link CompactObject}s and
 * {@link CompactArray}s: they must behave exactly as Parsson's values do, for equality,
 * order, lookups, typed getters, immutability, and Parsson's own patches and pointers.
 */
class CompactJsonTests {

	@ParameterizedTest
	@ValueSource(longs = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 })
	void aDocumentReadIsEqualToParssonsAndDiffsAndPatchesTheSame(long seed) {
		RandomDocuments documents = new RandomDocuments(seed);
		JsonStructure parsson = documents.document(seed % 2 == 0);
		for (int step = 0; step < 20; step++) {
			JsonStructure next = documents.mutate(parsson);
			assertThat(readsDiffsAndPatchesAsParsson(parsson, next)).isInstanceOfAny(CompactObject.class,
					CompactArray.class);
			parsson = next;
		}
	}

	@Test
	void membersKeepTheirOrderAndAreFoundByNameInSmallAndLargeObjects() {
		String large = IntStream.range(0, 40)
			.mapToObj((i) -> "\"k" + (39 - i) + "\":" + i)
			.collect(Collectors.joining(",", "{", "}"));
		JsonObject object = JsonPatches
			.read(("{\"b\":1,\"a\":{\"z\":true,\"y\":null},\"large\":" + large + "}").getBytes(StandardCharsets.UTF_8))
			.asJsonObject();
		assertThat(object.keySet()).containsExactly("b", "a", "large");
		assertThat(object.getJsonObject("a").keySet()).containsExactly("z", "y");
		JsonObject many = object.getJsonObject("large");
		assertThat(many).hasSize(40);
		for (int i = 0; i < 40; i++) {
			assertThat(many.getInt("k" + (39 - i))).isEqualTo(i);
		}
		assertThat(many.containsKey("k40")).isFalse();
		assertThat(many.get("k40")).isNull();
		assertThat(object.get("a")).isEqualTo(parsson("{\"z\":true,\"y\":null}"));
	}

	@ParameterizedTest
	@ValueSource(strings = {
			"[{\"a\":1,\"b\":2},{\"a\":3,\"b\":4},{\"a\":5},{\"a\":6,\"b\":7,\"c\":8},{\"b\":9,\"a\":0}]",
			"[{\"a\":1,\"b\":2},{},{\"a\":1,\"b\":2},{\"a\":{\"a\":1,\"b\":2},\"b\":[{\"b\":1},{\"b\":2,\"a\":3}]}]",
			"{\"x\":{\"id\":1,\"v\":2},\"y\":[{\"id\":1,\"v\":2},{\"id\":2,\"w\":3}],\"z\":{\"id\":1}}",
			"[[{\"k\":1}],[{\"k\":2},{\"k\":3,\"l\":4}],{\"k\":5},{\"l\":6,\"k\":7}]" })
	void objectsLikeAndUnlikeTheOneBeforeThemReadAsParssonReadsThem(String json) {
		JsonStructure parsson = parsson(json);
		JsonValue compact = JsonPatches.read(json.getBytes(StandardCharsets.UTF_8));
		assertThat(compact).isEqualTo(parsson).hasSameHashCodeAs(parsson);
		assertThat(compact).hasToString(parsson.toString());
		assertThat(JsonPatches.readStored(json.getBytes(StandardCharsets.UTF_8))).isEqualTo(parsson);
	}

	@Test
	void aNameRepeatedInStoredJsonAfterLikeObjectsKeepsItsLastValue() {
		JsonArray stored = JsonPatches
			.readStored(
					"[{\"a\":1,\"b\":2},{\"a\":3,\"b\":4,\"a\":5},{\"a\":6,\"b\":7}]".getBytes(StandardCharsets.UTF_8))
			.asJsonArray();
		assertThat(stored.getJsonObject(1).keySet()).containsExactly("a", "b");
		assertThat(stored.getJsonObject(1).getInt("a")).isEqualTo(5);
		assertThat(stored.getJsonObject(2)).isEqualTo(parsson("{\"a\":6,\"b\":7}"));
		assertThatIllegalArgumentException().isThrownBy(() -> JsonPatches
			.read("[{\"a\":1,\"b\":2},{\"a\":3,\"b\":4,\"a\":5}]".getBytes(StandardCharsets.UTF_8)));
	}

	@Test
	void objectsWithTheSameMembersInAnotherOrderAreEqual() {
		JsonValue ab = JsonPatches.read("{\"a\":1,\"b\":[2]}".getBytes(StandardCharsets.UTF_8));
		JsonValue ba = JsonPatches.read("{\"b\":[2],\"a\":1}".getBytes(StandardCharsets.UTF_8));
		JsonValue other = JsonPatches.read("{\"a\":1,\"b\":[3]}".getBytes(StandardCharsets.UTF_8));
		assertThat(ab).isEqualTo(ba).hasSameHashCodeAs(ba).isNotEqualTo(other);
		assertThat(ab).isEqualTo(parsson("{\"b\":[2],\"a\":1}"));
	}

	@Test
	void typedGettersAnswerAsParssonsDo() {
		JsonObject object = JsonPatches
			.read("{\"s\":\"text\",\"n\":7,\"t\":true,\"f\":false,\"z\":null,\"o\":{},\"a\":[\"x\",2,false,null,{}]}"
				.getBytes(StandardCharsets.UTF_8))
			.asJsonObject();
		assertThat(object.getString("s")).isEqualTo("text");
		assertThat(object.getString("n", "fallback")).isEqualTo("fallback");
		assertThat(object.getString("missing", "fallback")).isEqualTo("fallback");
		assertThat(object.getInt("n")).isEqualTo(7);
		assertThat(object.getInt("s", -1)).isEqualTo(-1);
		assertThat(object.getBoolean("t")).isTrue();
		assertThat(object.getBoolean("f", true)).isFalse();
		assertThat(object.getBoolean("missing", true)).isTrue();
		assertThat(object.isNull("z")).isTrue();
		assertThat(object.isNull("n")).isFalse();
		assertThat(object.getJsonObject("o")).isEmpty();
		assertThat(object.getJsonNumber("n").longValue()).isEqualTo(7);
		assertThat(object.getJsonString("s").getString()).isEqualTo("text");
		assertThatExceptionOfType(ClassCastException.class).isThrownBy(() -> object.getBoolean("n"));
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> object.getBoolean("missing"));
		JsonArray array = object.getJsonArray("a");
		assertThat(array.getString(0)).isEqualTo("x");
		assertThat(array.getInt(1)).isEqualTo(2);
		assertThat(array.getBoolean(2)).isFalse();
		assertThat(array.isNull(3)).isTrue();
		assertThat(array.getJsonObject(4)).isEmpty();
		assertThat(array.getString(9, "none")).isEqualTo("none");
		assertThat(array.getInt(0, -1)).isEqualTo(-1);
		assertThat(array.getBoolean(9, true)).isTrue();
		assertThat(array.getValuesAs(JsonValue.class)).hasSize(5);
	}

	@Test
	void documentsCannotBeChanged() {
		JsonObject object = JsonPatches.read("{\"a\":[1]}".getBytes(StandardCharsets.UTF_8)).asJsonObject();
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> object.put("b", JsonValue.NULL));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> object.remove("a"));
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> object.entrySet().iterator().next().setValue(JsonValue.NULL));
		JsonArray array = object.getJsonArray("a");
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> array.add(JsonValue.NULL));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> array.set(0, JsonValue.NULL));
	}

	@Test
	void aRepeatedNameIsRefusedInInputAndItsLastValueWinsInStoredJson() {
		byte[] repeated = "{\"a\":1,\"b\":2,\"a\":3}".getBytes(StandardCharsets.UTF_8);
		assertThatIllegalArgumentException().isThrownBy(() -> JsonPatches.read(repeated));
		JsonObject stored = JsonPatches.readStored(repeated).asJsonObject();
		assertThat(stored.keySet()).containsExactly("a", "b");
		assertThat(stored.getInt("a")).isEqualTo(3);
	}

	@Test
	void smallIntegersAreSharedAndEqualToParssonsNumbers() {
		JsonArray numbers = JsonPatches.read("[5,5,-128,1023,1024,-129,12345678901]".getBytes(StandardCharsets.UTF_8))
			.asJsonArray();
		assertThat(numbers.get(0)).isSameAs(numbers.get(1));
		assertThat(numbers).isEqualTo(parsson("[5,5,-128,1023,1024,-129,12345678901]"));
		assertThat(numbers.getJsonNumber(6).longValue()).isEqualTo(12345678901L);
	}

	@ParameterizedTest
	@ValueSource(strings = { "0", "7", "-128", "1024", "-129", "2147483647", "-2147483648", "2147483648", "-2147483649",
			"9223372036854775807", "-9223372036854775808", "123456789012" })
	void integersAreCompactAndBehaveAsParssonsNumbers(String json) {
		JsonNumber compact = (JsonNumber) JsonPatches.read(json.getBytes(StandardCharsets.UTF_8));
		JsonNumber parsson = (JsonNumber) parsson("[" + json + "]").asJsonArray().get(0);
		assertThat(compact).isInstanceOf(CompactNumber.class);
		assertThat(compact).isEqualTo(parsson).hasSameHashCodeAs(parsson);
		assertThat(parsson).isEqualTo(compact);
		assertThat(compact.hashCode()).isEqualTo(compact.bigDecimalValue().hashCode());
		assertThat(compact).hasToString(parsson.toString()).hasToString(json);
		assertThat(compact.isIntegral()).isTrue();
		assertThat(compact.longValue()).isEqualTo(parsson.longValue());
		assertThat(compact.intValue()).isEqualTo(parsson.intValue());
		assertThat(compact.doubleValue()).isEqualTo(parsson.doubleValue());
		assertThat(compact.bigDecimalValue()).isEqualTo(parsson.bigDecimalValue());
		assertThat(compact.bigIntegerValueExact()).isEqualTo(parsson.bigIntegerValueExact());
		assertThat(compact.numberValue().longValue()).isEqualTo(parsson.longValue());
		if (parsson.longValue() == parsson.intValue()) {
			assertThat(compact.intValueExact()).isEqualTo(parsson.intValueExact());
		}
		else {
			assertThatExceptionOfType(ArithmeticException.class).isThrownBy(compact::intValueExact);
		}
		assertThat(new String(JsonPatches.write(compact), StandardCharsets.UTF_8)).isEqualTo(json);
	}

	@Test
	void anIntegerIsNotEqualToTheSameValueWithAScale() {
		JsonValue one = JsonPatches.read("1".getBytes(StandardCharsets.UTF_8));
		JsonValue large = JsonPatches.read("5000".getBytes(StandardCharsets.UTF_8));
		assertThat(one).isNotEqualTo(Json.createValue(new BigDecimal("1.0")))
			.isEqualTo(Json.createValue(new BigDecimal("1")))
			.isNotEqualTo(Json.createValue("1"));
		assertThat(large).isNotEqualTo(JsonPatches.read("5000.0".getBytes(StandardCharsets.UTF_8)))
			.isEqualTo(Json.createValue(5000L))
			.isNotEqualTo(JsonPatches.read("5001".getBytes(StandardCharsets.UTF_8)));
	}

	@Test
	void anObjectIsAMapEqualToAnyMapOfTheSameMembers() {
		JsonObject object = JsonPatches.read("{\"a\":1,\"b\":\"x\"}".getBytes(StandardCharsets.UTF_8)).asJsonObject();
		assertThat(object).isEqualTo(Map.of("b", Json.createValue("x"), "a", Json.createValue(1)))
			.isNotEqualTo(Map.of("a", Json.createValue(1)))
			.isNotEqualTo(Map.of(1, Json.createValue(1), 2, Json.createValue("x")))
			.isNotEqualTo(List.of(Json.createValue(1)));
		assertThat(object.keySet()).containsExactly("a", "b").contains("b").doesNotContain("c");
		assertThat(object.values()).containsExactly(Json.createValue(1), Json.createValue("x"));
		assertThat(object.containsValue(Json.createValue("x"))).isTrue();
		assertThat(object.containsValue(Json.createValue("y"))).isFalse();
		assertThat(object.isEmpty()).isFalse();
		assertThat(JsonPatches.read("{}".getBytes(StandardCharsets.UTF_8)).asJsonObject().isEmpty()).isTrue();
		assertThat(object.getOrDefault("c", JsonValue.NULL)).isEqualTo(JsonValue.NULL);
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(object::clear);
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> object.putAll(Map.of("c", JsonValue.NULL)));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> object.keySet().clear());
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> object.values().clear());
	}

	@Test
	void parssonsPointersWorkOnIt() {
		JsonStructure document = JsonPatches
			.read("{\"items\":[{\"id\":1,\"value\":10},{\"id\":2,\"value\":20}]}".getBytes(StandardCharsets.UTF_8))
			.asJsonObject();
		assertThat(document.getValue("/items/1/value")).isEqualTo(Json.createValue(20));
		assertThat(Json.createPointer("/items/0").replace(document, Json.createValue(0)))
			.isEqualTo(parsson("{\"items\":[0,{\"id\":2,\"value\":20}]}"));
		assertThat(List.copyOf(document.asJsonObject().getJsonArray("items")))
			.isEqualTo(parsson("[{\"id\":1,\"value\":10},{\"id\":2,\"value\":20}]"));
	}

	/**
	 * Reads two versions of a document and checks them against Parsson's: equality both
	 * ways, hash code, writing, the diff between them, and applying it.
	 * @param parsson a version, as Parsson's values
	 * @param next the next version, as Parsson's values
	 * @return the first version as read
	 */
	static JsonStructure readsDiffsAndPatchesAsParsson(JsonStructure parsson, JsonStructure next) {
		JsonStructure compact = read(parsson);
		JsonStructure compactNext = read(next);
		assertThat(compact).isEqualTo(parsson).hasSameHashCodeAs(parsson);
		assertThat(parsson).isEqualTo(compact);
		assertThat(compact).isEqualTo(read(parsson)).hasSameHashCodeAs(read(parsson));
		assertThat(compact.equals(compactNext)).isEqualTo(parsson.equals(next));
		assertThat(compact.toString()).isEqualTo(parsson.toString());
		JsonArray patch = JsonPatches.diff(compact, compactNext);
		assertThat(patch).isEqualTo(JsonPatches.diff(parsson, next));
		// What a poller publishes: the same patch, written without being built.
		Optional<byte[]> written = JsonPatches.writeDiff(compact, compactNext);
		assertThat(written.isPresent()).isEqualTo(!patch.isEmpty());
		written.ifPresent((bytes) -> assertThat(bytes).asString(StandardCharsets.UTF_8)
			.isEqualTo(new String(JsonPatches.write(patch), StandardCharsets.UTF_8)));
		assertThat(JsonPatches.apply(compact, patch)).isEqualTo(next).hasSameHashCodeAs(next);
		return compact;
	}

	private static JsonStructure read(JsonStructure document) {
		return (JsonStructure) JsonPatches.read(JsonPatches.write(document));
	}

	private static JsonStructure parsson(String json) {
		try (var reader = Json.createReader(new StringReader(json))) {
			return reader.read();
		}
	}

}
