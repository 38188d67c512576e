package dev.streamgate.core.topic;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class TopicJsonTests {

	private static Topic read(String json) {
		return TopicJson.fromRequest(TopicJson.parseTree(json.getBytes(StandardCharsets.UTF_8)));
	}

	@ParameterizedTest(name = "{0} -> {1}")
	@CsvSource(delimiter = '|', textBlock = """
			{"id":"a","foo":1}                        | /foo
			{"publisher":{"type":"http-post","x":1}}  | /publisher/x
			{"retention":"P7X"}                       | /retention
			{"retention":7}                           | /retention
			{"partitions":"3"}                        | /partitions
			{"partitions":1.5}                        | /partitions
			{"public":"yes"}                          | /public
			{"name":5}                                | /name
			{"payloadType":"stream"}                  | /payloadType
			{"subscriptionModes":["live"]}            | /subscriptionModes/0
			{"publisher":{"type":"ftp"}}              | /publisher/type
			{"publisher":{"url":"https://example.com"}} | /publisher/type
			{"publisher":"http-post"}                 | /publisher
			{"publisher":{"type":"http-post","url":"https://example.com"}} | /publisher
			{"publisher":{"type":"kafka","topic":"orders","url":"https://example.com"}} | /publisher
			{"publisher":{"type":"http-poller","url":"https://example.com","topic":"orders"}} | /publisher
			{"publisher":{"type":"http-poller","pollingPeriod":"1s"}} | /publisher/pollingPeriod
			{"createdAt":"2026-01-01T00:00:00Z"}      | /createdAt
			[1,2]                                     | ''
			""")
	void invalidDocumentsNameTheOffendingField(String json, String pointer) {
		assertThatExceptionOfType(StreamgateException.class).isThrownBy(() -> read(json)).satisfies((ex) -> {
			assertThat(ex.problemType()).isEqualTo(ProblemType.INVALID_TOPIC);
			assertThat(ex.getBody().getProperties().get("errors").toString()).contains("pointer=" + pointer + ",");
		});
	}

	@Test
	void eachKindOfPublisherReadsIntoItsOwnTypeAndWritesItsTypeFirst() {
		Topic mirrored = read("""
				{"id":"orders","publisher":{"topic":"orders-in","url":null,"type":"kafka"}}""").withDefaults();
		assertThat(mirrored.publisher())
			.isEqualTo(new Publisher.Kafka(null, "orders-in", null, Publisher.StartFrom.LATEST));
		assertThat(mirrored.kafkaSource().topic()).isEqualTo("orders-in");
		assertThat(TopicJson.toTree(mirrored).get("publisher").toString())
			.isEqualTo("{\"type\":\"kafka\",\"topic\":\"orders-in\",\"startFrom\":\"latest\"}");
		Topic polled = read("""
				{"id":"prices","publisher":{"type":"http-poller","url":"https://example.com/prices"}}""")
			.withDefaults();
		assertThat(polled.publisher()).isInstanceOfSatisfying(Publisher.HttpPoller.class,
				(poller) -> assertThat(poller.pollingPeriod()).isEqualTo(Duration.ofSeconds(1)));
		assertThat(polled.kafkaSource()).isNull();
		assertThat(TopicJson.fromBytes(TopicJson.toBytes(polled))).isEqualTo(polled);
		assertThat(read("{\"id\":\"a\",\"publisher\":{\"type\":\"http-post\"}}").publisher())
			.isEqualTo(Publisher.HTTP_POST);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			{bad
			{"id":"a","id":"b"}
			{"id":"a"} {"id":"b"}
			''
			""")
	void malformedJsonIsReportedAsSuch(String json) {
		assertThatExceptionOfType(StreamgateException.class)
			.isThrownBy(() -> TopicJson.parseTree(json.getBytes(StandardCharsets.UTF_8)))
			.satisfies((ex) -> assertThat(ex.problemType()).isEqualTo(ProblemType.MALFORMED_JSON));
	}

	@Test
	void storedFormRoundTripsAndWritesDurationsAsPeopleDo() {
		Instant now = Instant.parse("2026-11-21T10:00:00.123Z");
		Topic topic = read("""
				{"id":"prices","payloadType":"snapshot","publisher":{"type":"http-poller",
				 "url":"https://api.example.com/prices","pollingPeriod":"PT0.5S"}}""").withDefaults()
			.withTimestamps(now, now);
		String json = new String(TopicJson.toBytes(topic), StandardCharsets.UTF_8);
		assertThat(json).contains("\"retention\":\"P7D\"", "\"pollingPeriod\":\"PT0.5S\"", "\"public\":false",
				"\"createdAt\":\"2026-11-21T10:00:00.123Z\"");
		assertThat(TopicJson.fromBytes(TopicJson.toBytes(topic))).isEqualTo(topic);
		assertThat(topic.retention()).isEqualTo(Duration.ofDays(7));
	}

	@Test
	void storedFormToleratesFieldsOfNewerVersions() {
		byte[] newer = "{\"id\":\"a\",\"payloadType\":\"event\",\"futureField\":true}".getBytes(StandardCharsets.UTF_8);
		assertThat(TopicJson.fromBytes(newer).id()).isEqualTo("a");
	}

}
