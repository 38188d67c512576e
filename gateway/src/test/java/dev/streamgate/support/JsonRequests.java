package dev.streamgate.support;

import java.net.URI;

import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The JSON requests tests send to a gateway, whether it runs in this JVM or in its own,
 * each checking the answer's status.
 */
public interface JsonRequests {

	/**
	 * The client of the gateway.
	 * @return the client
	 */
	WebTestClient client();

	/**
	 * Where the gateway listens.
	 * @return e.g. {@code http://127.0.0.1:8080}
	 */
	String baseUrl();

	/**
	 * Posts JSON and checks the status.
	 * @param uri the path
	 * @param json the body
	 * @param status the status expected
	 * @return the answer's body
	 */
	default String post(String uri, String json, int status) {
		return send(client().post().uri(sent(uri)).contentType(MediaType.APPLICATION_JSON), json, status);
	}

	/**
	 * Sends a JSON merge patch and checks the status.
	 * @param uri the path
	 * @param json the patch
	 * @param status the status expected
	 * @return the answer's body
	 */
	default String patch(String uri, String json, int status) {
		return send(client().patch().uri(sent(uri)).contentType(MediaType.valueOf("application/merge-patch+json")),
				json, status);
	}

	/**
	 * Gets a body, whatever the status.
	 * @param uri the path
	 * @return the answer's body
	 */
	default String get(String uri) {
		return client().get().uri(sent(uri)).exchange().expectBody(String.class).returnResult().getResponseBody();
	}

	/**
	 * The path as written: a test encodes its query parameters itself.
	 * @param uri the path and query
	 * @return the absolute URI
	 */
	private URI sent(String uri) {
		return URI.create(baseUrl() + uri);
	}

	/**
	 * Sends a request with a body and checks the status.
	 * @param request the request, its URI and headers set
	 * @param body the body
	 * @param status the status expected
	 * @return the answer's body
	 */
	static String send(WebTestClient.RequestBodySpec request, String body, int status) {
		return request.bodyValue(body)
			.exchange()
			.expectStatus()
			.isEqualTo(status)
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
	}

}
