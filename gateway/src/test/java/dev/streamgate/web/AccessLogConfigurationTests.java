package dev.streamgate.web;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.streamgate.core.web.StreamAccessLog;

import static org.assertj.core.api.Assertions.assertThat;

class AccessLogConfigurationTests {

	@ParameterizedTest
	@CsvSource(delimiter = '|',
			value = { "/api/v1/stream/a?access_token=abc.def|/api/v1/stream/a?access_token=***",
					"/api/v1/stream/a?mode=event&token=s3cr3t&x=1|/api/v1/stream/a?mode=event&token=***&x=1",
					"/api/v1/stream/a;access_token=s3cr3t|/api/v1/stream/a;access_token=***",
					"/api/v1/topics?api_key=k&page=0|/api/v1/topics?api_key=***&page=0",
					"/api/v1/stream/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl|/api/v1/stream/***",
					"/api/v1/topics?page=0&size=20|/api/v1/topics?page=0&size=20" })
	void credentialsNeverReachTheAccessLog(String uri, String logged) {
		assertThat(StreamAccessLog.mask(uri)).isEqualTo(logged);
	}

}
