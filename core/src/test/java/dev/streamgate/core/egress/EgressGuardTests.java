package dev.streamgate.core.egress;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;

import dev.streamgate.support.HeldServerLoops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EgressGuardTests {

	private final EgressGuard guard = new EgressGuard(new EgressProperties(List.of(), true));

	@AfterEach
	void closeGuard() {
		this.guard.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "127.0.0.1", "127.1.2.3", "10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.1.1",
			"169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "::", "fe80::1", "fd00:ec2::254", "fc00::1",
			"::ffff:127.0.0.1", "::ffff:169.254.169.254", "192.0.2.1", "192.88.99.1", "198.51.100.7", "203.0.113.9",
			"64:ff9b:1::a00:1", "2001:0:4136:e378:8000:63bf:f5ff:fffe", "2001:db8::1", "3fff::1", "100::1", "5f00::1",
			"fec0::1" })
	void internalAddressesAreRefused(String address) throws Exception {
		assertThat(this.guard.refusal(InetAddress.getByName(address))).isPresent();
	}

	@ParameterizedTest
	@ValueSource(strings = { "93.184.215.14", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8" })
	void publicAddressesPass(String address) throws Exception {
		assertThat(this.guard.refusal(InetAddress.getByName(address))).isEmpty();
	}

	@Test
	void allowedRangesOverrideTheRefusal() throws Exception {
		EgressGuard allowing = new EgressGuard(new EgressProperties(List.of("127.0.0.0/8", "10.1.0.0/16"), true));
		assertThat(allowing.refusal(InetAddress.getByName("127.0.0.1"))).isEmpty();
		assertThat(allowing.refusal(InetAddress.getByName("10.1.2.3"))).isEmpty();
		assertThat(allowing.refusal(InetAddress.getByName("10.2.0.1"))).isPresent();
	}

	@Test
	void urlsAreCheckedWhereTheirHostResolves() {
		assertThat(this.guard.check(URI.create("http://localhost:8080/x")).block(Duration.ofSeconds(5)))
			.hasValueSatisfying((reason) -> assertThat(reason).startsWith("localhost resolves to 127.0.0.1"));
		assertThat(this.guard.check(URI.create("http://[::1]/x")).block(Duration.ofSeconds(5))).isPresent();
		assertThat(this.guard.check(URI.create("http://169.254.169.254/latest/meta-data")).block(Duration.ofSeconds(5)))
			.isPresent();
		assertThat(this.guard.check(URI.create("https://8.8.8.8/")).block(Duration.ofSeconds(5))).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(strings = { "http://LOCALHOST.:8080/", "http://[::127.0.0.1]:8080/", "http://[fe80::1%25lo]:8080/",
			"http://0x7f000001:8080/", "http://0177.0.0.1:8080/", "http://2130706433:8080/", "http://127.1:8080/",
			"http://[64:ff9b::7f00:1]:8080/", "http://[2002:7f00:1::]:8080/", "http://[::ffff:7f00:1]:8080/" })
	void internalAddressesInDisguiseAreRefusedAtRegistration(String url) {
		// Each is refused when it is registered, not only when a connection is made.
		assertThat(this.guard.check(URI.create(url)).block(Duration.ofSeconds(5))).as(url).isPresent();
	}

	@ParameterizedTest
	@ValueSource(strings = { "2606:4700::1111", "64:ff9b::808:808", "2002:808:808::" })
	void ipv6AddressesCarryingAPublicIpv4Pass(String address) throws Exception {
		assertThat(this.guard.refusal(InetAddress.getByName(address))).isEmpty();
	}

	@Test
	void guardedClientsRefuseInternalAddressesAtConnectTimeRedirectsIncluded() {
		DisposableServer server = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.route((routes) -> routes.get("/ok", (request, response) -> response.sendString(Mono.just("ok")))
				.get("/away",
						(request, response) -> response
							.sendRedirect("http://127.0.0.2:" + request.hostAddress().getPort() + "/ok")))
			.bindNow();
		try {
			String base = "http://127.0.0.1:" + server.port();
			HttpClient refusing = this.guard.guard(HttpClient.create());
			assertThatThrownBy(() -> get(refusing, base + "/ok")).isInstanceOf(EgressRefusedException.class)
				.hasMessageContaining("127.0.0.1");
			assertThatThrownBy(() -> get(refusing, "http://localhost:" + server.port() + "/ok"))
				.isInstanceOf(EgressRefusedException.class);
			try (EgressGuard allowingGuard = new EgressGuard(new EgressProperties(List.of("127.0.0.1/32"), true))) {
				HttpClient allowing = allowingGuard.guard(HttpClient.create().followRedirect(true));
				assertThat(get(allowing, base + "/ok")).isEqualTo("ok");
				assertThatThrownBy(() -> get(allowing, base + "/away")).isInstanceOf(EgressRefusedException.class)
					.hasMessageContaining("127.0.0.2");
			}
		}
		finally {
			server.disposeNow();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "127.0.0.1", "localhost" })
	void aGuardedClientConnectsWhileEveryEventLoopOfTheNodesHttpServerIsBusy(String host) throws Exception {
		// The JDK's HTTP server runs on no Netty event loop.
		com.sun.net.httpserver.HttpServer endpoint = com.sun.net.httpserver.HttpServer
			.create(new InetSocketAddress("127.0.0.1", 0), 0);
		endpoint.createContext("/ok", (exchange) -> {
			byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(200, body.length);
			exchange.getResponseBody().write(body);
			exchange.close();
		});
		endpoint.start();
		try (HeldServerLoops held = HeldServerLoops.hold();
				EgressGuard allowing = new EgressGuard(new EgressProperties(List.of("127.0.0.0/8"), true))) {
			HttpClient client = allowing.guard(HttpClient.create());
			assertThat(get(client, "http://" + host + ":" + endpoint.getAddress().getPort() + "/ok")).isEqualTo("ok");
		}
		finally {
			endpoint.stop(0);
		}
	}

	private static String get(HttpClient client, String url) {
		return client.get().uri(url).responseContent().aggregate().asString().block(Duration.ofSeconds(10));
	}

	@Test
	void aRangeWithoutPrefixLengthIsAConfigurationError() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new EgressGuard(new EgressProperties(List.of("10.0.0.1"), true)))
			.withMessageContaining("streamgate.egress.allowed-cidrs");
	}

	@Test
	void withoutPublicAddressesOnlyTheAllowedRangesMayBeReached() throws Exception {
		EgressGuard listOnly = new EgressGuard(new EgressProperties(List.of("127.0.0.0/8"), false));
		assertThat(listOnly.refusal(java.net.InetAddress.getByName("8.8.8.8"))).get()
			.asString()
			.contains("streamgate.egress.allow-public=false");
		assertThat(listOnly.refusal(java.net.InetAddress.getByName("127.0.0.1"))).isEmpty();
		assertThat(listOnly.refusal(java.net.InetAddress.getByName("10.0.0.1"))).get()
			.asString()
			.contains("allowed-cidrs");
		assertThat(this.guard.refusal(java.net.InetAddress.getByName("8.8.8.8"))).isEmpty();
	}

}
