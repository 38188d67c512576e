package dev.streamgate.core.topic;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

class MergePatchTests {

	private final JsonMapper mapper = JsonMapper.builder().build();

	// The examples of RFC 7386, appendix A.
	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			{"a":"b"}              | {"a":"c"}            | {"a":"c"}
			{"a":"b"}              | {"b":"c"}            | {"a":"b","b":"c"}
			{"a":"b"}              | {"a":null}           | {}
			{"a":"b","b":"c"}      | {"a":null}           | {"b":"c"}
			{"a":["b"]}            | {"a":"c"}            | {"a":"c"}
			{"a":"c"}              | {"a":["b"]}          | {"a":["b"]}
			{"a":{"b":"c"}}        | {"a":{"b":"d","c":null}} | {"a":{"b":"d"}}
			{"a":[{"b":"c"}]}      | {"a":[1]}            | {"a":[1]}
			["a","b"]              | ["c","d"]            | ["c","d"]
			{"a":"b"}              | ["c"]                | ["c"]
			{"a":"foo"}            | null                 | null
			{"a":"foo"}            | "bar"                | "bar"
			{"e":null}             | {"a":1}              | {"e":null,"a":1}
			[1,2]                  | {"a":"b","c":null}   | {"a":"b"}
			{}                     | {"a":{"bb":{"ccc":null}}} | {"a":{"bb":{}}}
			""")
	void applyMatchesEveryExampleOfRfc7386(String target, String patch, String expected) {
		assertThat(MergePatch.apply(this.mapper.readTree(target), this.mapper.readTree(patch)))
			.isEqualTo(this.mapper.readTree(expected));
	}

}
