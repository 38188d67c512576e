package dev.streamgate.core.egress;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import io.netty.handler.ipfilter.IpFilterRuleType;
import io.netty.handler.ipfilter.IpSubnetFilterRule;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.HttpClient;

/**
 * Refuses outgoing connections to addresses inside the operator's network (server-side
 * request forgery): loopback, private, carrier-grade NAT, link-local (cloud metadata
 * lives at 169.254.169.254), unique-local, multicast and unspecified addresses, unless
 * {@code streamgate.egress.allowed-cidrs} allows them. Checked when a URL is registered
 * and again on each connection, since DNS may answer differently the second time.
 */
public class EgressGuard {

	private static final List<IpSubnetFilterRule> INTERNAL = rules(List.of("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10",
			"127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15",
			"224.0.0.0/4", "240.0.0.0/4", "::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8"));

	private final List<IpSubnetFilterRule> allowed;

	public EgressGuard(EgressProperties properties) {
		this.allowed = rules(properties.allowedCidrs());
	}

	/**
	 * Why an address may not be reached, if it may not.
	 * @param address the address
	 * @return the reason, or empty when it may be reached
	 */
	public Optional<String> refusal(InetAddress address) {
		InetAddress effective = unmapped(address);
		InetSocketAddress socket = new InetSocketAddress(effective, 0);
		if (this.allowed.stream().anyMatch((rule) -> rule.matches(socket))) {
			return Optional.empty();
		}
		if (INTERNAL.stream().anyMatch((rule) -> rule.matches(socket))) {
			return Optional.of(effective.getHostAddress()
					+ " is a loopback, private, link-local or metadata address; allow it with streamgate.egress.allowed-cidrs");
		}
		return Optional.empty();
	}

	/**
	 * Applies the guard to every connection an HTTP client makes, redirects included:
	 * resolved addresses that may not be reached are dropped, and a host left with none
	 * fails with {@link EgressRefusedException} before any byte is sent.
	 * @param client the client
	 * @return the guarded client
	 */
	public HttpClient guard(HttpClient client) {
		return client.resolvedAddressesSelector((config, resolved) -> {
			List<SocketAddress> permitted = new ArrayList<>(resolved.size());
			String reason = null;
			for (SocketAddress address : resolved) {
				Optional<String> refusal = (address instanceof InetSocketAddress inet && inet.getAddress() != null)
						? refusal(inet.getAddress()) : Optional.empty();
				if (refusal.isEmpty()) {
					permitted.add(address);
				}
				else {
					reason = refusal.get();
				}
			}
			if (permitted.isEmpty() && reason != null) {
				throw new EgressRefusedException(reason);
			}
			return permitted;
		});
	}

	/**
	 * Checks where a URL's host resolves, off the event loop. A host that does not
	 * resolve now passes: it is checked again when a connection is made.
	 * @param url the URL
	 * @return the reason the URL is refused, or empty
	 */
	public Mono<Optional<String>> check(URI url) {
		String host = url.getHost();
		if (host == null) {
			return Mono.just(Optional.of("the URL has no host"));
		}
		return Mono.fromCallable(() -> resolve(host))
			.subscribeOn(Schedulers.boundedElastic())
			.map((addresses) -> Arrays.stream(addresses)
				.map(this::refusal)
				.flatMap(Optional::stream)
				.findFirst()
				.map((reason) -> host + " resolves to " + reason));
	}

	private static InetAddress[] resolve(String host) {
		try {
			return InetAddress.getAllByName(host.startsWith("[") ? host.substring(1, host.length() - 1) : host);
		}
		catch (UnknownHostException ex) {
			return new InetAddress[0];
		}
	}

	/**
	 * An IPv4 address written as IPv6 (::ffff:a.b.c.d) is checked as the IPv4 address it
	 * is.
	 */
	private static InetAddress unmapped(InetAddress address) {
		if (address instanceof Inet6Address) {
			byte[] bytes = address.getAddress();
			boolean mapped = true;
			for (int i = 0; i < 10; i++) {
				mapped &= bytes[i] == 0;
			}
			if (mapped && bytes[10] == (byte) 0xff && bytes[11] == (byte) 0xff) {
				try {
					return Inet4Address.getByAddress(Arrays.copyOfRange(bytes, 12, 16));
				}
				catch (UnknownHostException ex) {
					return address;
				}
			}
		}
		return address;
	}

	private static List<IpSubnetFilterRule> rules(List<String> cidrs) {
		return cidrs.stream().map(String::trim).filter((cidr) -> !cidr.isEmpty()).map((cidr) -> {
			int slash = cidr.indexOf('/');
			if (slash < 0) {
				throw new IllegalArgumentException(
						"streamgate.egress.allowed-cidrs: '" + cidr + "' is not a CIDR range such as 127.0.0.0/8");
			}
			return new IpSubnetFilterRule(cidr.substring(0, slash), Integer.parseInt(cidr.substring(slash + 1)),
					IpFilterRuleType.ACCEPT);
		}).toList();
	}

}
