package dev.streamgate.faults;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import dev.streamgate.support.BrokerProcess;
import dev.streamgate.support.GatewayProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hand-written bad input across the API, against a gateway process: malformed and
 * oversized bodies, wrong content types, invalid ids, unicode edge cases, huge headers,
 * very slow bodies. Every answer is a 4xx problem+json, or for what is not HTTP at all a
 * 4xx or a clean close; never a 5xx or a hang; the gateway stays ready throughout.
 */
@Tag("faults")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputFaultTests {

	private static final String PROBLEM = "application/problem+json";

	private BrokerProcess broker;

	private GatewayProcess gateway;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@BeforeAll
	void start(@TempDir Path dir) {
		this.broker = BrokerProcess.start(dir.resolve("kafka"), dir.resolve("broker.log"));
		this.gateway = GatewayProcess
			.startReady(dir.resolve("gateway.log"),
					GatewayCrashFaultTests
						.withBroker(
								new String[] { "--streamgate.security.enabled=false",
										"--streamgate.http.read-timeout=2s", "--streamgate.http.request-timeout=5s" },
								this.broker));
		Faults.post(this.gateway.baseUrl(), "/api/v1/topics",
				"{\"id\":\"bad\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}");
		Faults.post(this.gateway.baseUrl(), "/api/v1/topics",
				"{\"id\":\"doc\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-post\"}}");
	}

	@AfterAll
	void stop() {
		this.gateway.close();
		this.broker.close();
	}

	@Test
	void malformedBodiesAreProblems() throws Exception {
		for (String body : List.of("", "{", "{\"id\":", "[1,2", "nul", "{\"id\":\"x\"}garbage",
				"{\"id\":\"x\",\"id\":\"y\"}", "\"just a string\"",
				"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]", "{\"id\":1e999999}",
				"{\"payloadType\":\"nonsense\"}", "{\"partitions\":-1}", "{\"retention\":\"forever\"}",
				"{\"publisher\":{\"type\":\"http-poller\",\"url\":\"file:///etc/passwd\"}}")) {
			assertProblem("POST", "/api/v1/topics", "application/json", body.getBytes(StandardCharsets.UTF_8));
		}
		for (String body : List.of("", "{", "[", "{\"a\":1}{\"b\":2}", "\u0000")) {
			assertProblem("POST", "/api/v1/publish/bad", "application/json", body.getBytes(StandardCharsets.UTF_8));
		}
		assertProblem("POST", "/api/v1/publish/doc", "application/json", "42".getBytes(StandardCharsets.UTF_8));
		assertProblem("PATCH", "/api/v1/topics/bad", "application/merge-patch+json",
				"{\"payloadType\":\"snapshot\"}".getBytes(StandardCharsets.UTF_8));
		String deep = "[".repeat(100_000) + "]".repeat(100_000);
		assertProblem("POST", "/api/v1/publish/bad", "application/json", deep.getBytes(StandardCharsets.UTF_8));
	}

	@Test
	void oversizedBodiesAndWrongContentTypesAreProblems() throws Exception {
		byte[] huge = ("{\"pad\":\"" + "x".repeat(3 * 1024 * 1024) + "\"}").getBytes(StandardCharsets.UTF_8);
		assertProblem("POST", "/api/v1/publish/bad", "application/json", huge);
		assertProblem("POST", "/api/v1/topics", "application/json", huge);
		byte[] json = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
		for (String type : List.of("text/plain", "application/xml", "multipart/form-data; boundary=x",
				"application/x-www-form-urlencoded", "application/json; charset=latin-9999", "garbage")) {
			assertProblem("POST", "/api/v1/publish/bad", type, json);
			assertProblem("POST", "/api/v1/topics", type, json);
		}
		assertProblem("PATCH", "/api/v1/topics/bad", "application/json", json);
	}

	@Test
	void invalidIdsAndUnicodeEdgeCasesAreProblems() throws Exception {
		for (String path : List.of("/api/v1/topics/" + "a".repeat(1000), "/api/v1/topics/%00",
				"/api/v1/topics/%F0%9F%98%80", "/api/v1/topics/%E2%80%AEevil", "/api/v1/topics/..%2F..%2Fetc",
				"/api/v1/topics/%C3%28", "/api/v1/topics/bad/webhooks/not-a-webhook", "/api/v1/topics/nope/status",
				"/api/v1/stream/%FF%FE", "/api/v1/stream/nope", "/api/v1/topics?page=-1", "/api/v1/topics?size=100000",
				"/api/v1/topics?page=%F0%9F%98%80", "/api/v1/topics/bad/attempts")) {
			assertProblem("GET", path, null, null);
		}
		for (String id : List.of("\\u0000", "\\ud800", "\\u202eevil", "a b", "\\uFEFFbom", "😀", "x".repeat(300))) {
			assertProblem("POST", "/api/v1/topics", "application/json",
					("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8));
		}
		byte[] invalidUtf8 = { '{', '"', 'i', 'd', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}' };
		assertProblem("POST", "/api/v1/topics", "application/json", invalidUtf8);
		assertProblem("GET", "/api/v1/stream/bad?mode=%00", null, null);
		assertProblem("GET", "/api/v1/stream/bad?lastEventId=%F0%9F%98%80", null, null);
	}

	@Test
	void aMalformedUriIsAProblem() throws Exception {
		for (String path : List.of("/api/v1/topics/%ZZ", "/.well-known/mercure?topic=%G1",
				"/.well-known/mercure/subscriptions/%", "/api/v1/stream/a%zz?mode=event")) {
			String answer = raw("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
			assertThat(answer).as(path)
				.startsWith("HTTP/1.1 400")
				.containsIgnoringCase("content-type: application/problem+json")
				.contains("\"status\":400", "malformed");
		}
		assertThat(raw("HEAD /api/v1/topics/%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
			.startsWith("HTTP/1.1 400")
			.doesNotContain("malformed");
	}

	@Test
	void hugeHeadersAndBrokenHttpAreRefusedOrClosed() throws Exception {
		List<String> answers = new ArrayList<>();
		answers.add(raw("GET /api/v1/topics HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(64 * 1024) + "\r\n\r\n"));
		answers.add(raw("GET /api/v1/topics HTTP/1.1\r\nHost: x\r\n" + "X-Many: a\r\n".repeat(5000) + "\r\n"));
		answers.add(raw("GET /" + "a".repeat(64 * 1024) + " HTTP/1.1\r\nHost: x\r\n\r\n"));
		answers.add(raw("NONSENSE\r\n\r\n"));
		answers.add(raw("POST /api/v1/publish/bad HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
				+ "Content-Length: -5\r\n\r\n{}"));
		answers.add(raw("POST /api/v1/publish/bad HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
				+ "Transfer-Encoding: chunked\r\n\r\nZZZ\r\n{}\r\n0\r\n\r\n"));
		for (String answer : answers) {
			assertThat(answer).as("a 4xx or a clean close")
				.satisfiesAnyOf((a) -> assertThat(a).isEmpty(),
						(a) -> assertThat(a).matches("(?s)HTTP/1\\.1 4\\d\\d.*"));
		}
		assertThat(this.gateway.readinessStatus()).isEqualTo(200);
	}

	@Test
	void aVerySlowBodyIsCutOffWithoutHoldingTheConnection() throws Exception {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", this.gateway.port()));
			socket.setSoTimeout(20_000);
			OutputStream out = socket.getOutputStream();
			out.write(("POST /api/v1/publish/bad HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
					+ "Content-Length: 1000\r\n\r\n{\"a\":\"")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			long started = System.nanoTime();
			// One byte every 3 s: longer than the read timeout (2 s) between reads.
			String answer = "";
			for (int i = 0; i < 5 && answer.isEmpty(); i++) {
				Thread.sleep(3000);
				try {
					out.write('x');
					out.flush();
				}
				catch (IOException ex) {
					break;
				}
				answer = readAvailable(socket);
			}
			if (answer.isEmpty()) {
				answer = readAll(socket.getInputStream());
			}
			long seconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();
			assertThat(answer).satisfiesAnyOf((a) -> assertThat(a).isEmpty(),
					(a) -> assertThat(a).startsWith("HTTP/1.1 408"));
			assertThat(seconds).isLessThan(15);
		}
		assertThat(this.gateway.readinessStatus()).isEqualTo(200);
	}

	private void assertProblem(String method, String path, String contentType, byte[] body) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.gateway.baseUrl() + path))
			.timeout(Duration.ofSeconds(20));
		if (contentType != null) {
			request.header("Content-Type", contentType);
		}
		request.method(method,
				(body != null) ? HttpRequest.BodyPublishers.ofByteArray(body) : HttpRequest.BodyPublishers.noBody());
		HttpResponse<String> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		String what = method + " " + ((path.length() > 80) ? path.substring(0, 80) + "..." : path) + " "
				+ ((body != null && body.length < 100) ? new String(body, StandardCharsets.UTF_8) : "");
		assertThat(response.statusCode()).as(what).isBetween(400, 499);
		assertThat(response.headers().firstValue("Content-Type")).as(what)
			.hasValueSatisfying((type) -> assertThat(type).startsWith(PROBLEM));
		assertThat(response.body()).as(what).contains("\"type\"").contains("\"status\":" + response.statusCode());
	}

	private String raw(String request) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", this.gateway.port()));
			socket.setSoTimeout(15_000);
			try {
				socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
				socket.getOutputStream().flush();
				socket.shutdownOutput();
			}
			catch (IOException ex) {
				// The server may close before reading everything: a clean close.
			}
			return readAll(socket.getInputStream());
		}
	}

	private static String readAll(InputStream in) throws IOException {
		ByteArrayOutputStream answer = new ByteArrayOutputStream();
		try {
			in.transferTo(answer);
		}
		catch (SocketTimeoutException ex) {
			throw new AssertionError("no answer and no close within 15 s: " + answer, ex);
		}
		catch (IOException ex) {
			// reset by the server: a close
		}
		return answer.toString(StandardCharsets.ISO_8859_1);
	}

	private static String readAvailable(Socket socket) throws IOException {
		InputStream in = socket.getInputStream();
		if (in.available() == 0) {
			return "";
		}
		byte[] bytes = new byte[in.available()];
		int read = in.read(bytes);
		return new String(bytes, 0, Math.max(0, read), StandardCharsets.ISO_8859_1);
	}

}
