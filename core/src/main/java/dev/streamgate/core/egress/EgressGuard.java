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
import java.util.regex.Pattern;

import io.netty.channel.EventLoopGroup;
import io.netty.handler.ipfilter.IpFilterRuleType;
import io.netty.resolver.AddressResolverGroup;
import io.netty.handler.ipfilter.IpSubnetFilterRule;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.LoopResources;
import reactor.netty.transport.NameResolverProvider;

import dev.streamgate.core.problem.ProblemType;
import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.problem.StreamgateException.FieldError;

/**
 * Refuses outgoing connections to addresses inside the operator's network (server-side
 * request forgery) and to every other special-purpose address that is not globally
 * reachable: loopback, private, carrier-grade NAT, link-local (cloud metadata lives at
 * 169.254.169.254), unique-local, documentation, relay and translator ranges, multicast
 * and unspecified addresses, unless {@code streamgate.egress.allowed-cidrs} allows them.
 * Checked when a URL is registered and again on each connection, since DNS may answer
 * differently the second time.
 * <p>
 * The clients it guards (webhooks, pollers' sources, OAuth token requests) also run on
 * event loops of their own, not on the ones that serve the node's HTTP requests: on
 * those, a connection waited behind the node's ingest and streams, and while the node was
 * busy (500 topics of 50 KB, a cold JVM) a webhook took a median 17 s to connect, so its
 * attempts timed out. Closing the guard stops those loops.
 */
public class EgressGuard implements AutoCloseable {

	/**
	 * The ranges of IANA's IPv4 and IPv6 special-purpose address registries that are not
	 * globally reachable (documentation, benchmarking, relays and translators included),
	 * with multicast and the deprecated IPv6 site-local range. Addresses that carry an
	 * IPv4 address (mapped, NAT64's well-known prefix, 6to4) are checked as that address;
	 * Teredo's, whose IPv4 part is obscured, are refused whole with the rest of
	 * 2001::/23.
	 */
	private static final List<IpSubnetFilterRule> INTERNAL = rules(List.of("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10",
			"127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24",
			"192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
			"::/128", "::1/128", "64:ff9b:1::/48", "100::/64", "100:0:0:1::/64", "2001::/23", "2001:db8::/32",
			"3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8"));

	/**
	 * A host whose last label is a number is an IPv4 address in some notation (the URL
	 * standard's rule): 0x7f000001, 0177.0.0.1 and 2130706433 are all 127.0.0.1 to some
	 * resolvers.
	 */
	private static final Pattern NUMERIC_HOST = Pattern.compile("(?i)^(.*\\.)?(0x[0-9a-f]*|\\d+)\\.?$");

	private static final Pattern DOTTED_QUAD = Pattern
		.compile("^(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}$");

	private final List<IpSubnetFilterRule> allowed;

	private final boolean allowPublic;

	/** Reactor Netty's non-blocking DNS resolver, the one its clients use by default. */
	private AddressResolverGroup<?> dnsResolver;

	/** The event loops of outgoing connections, created with the first guarded client. */
	private LoopResources loops;

	public EgressGuard(EgressProperties properties) {
		this.allowed = rules(properties.allowedCidrs());
		this.allowPublic = properties.allowPublic();
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
					+ " is a loopback, private, link-local, metadata or other special-purpose address that is not "
					+ "globally reachable; allow it with streamgate.egress.allowed-cidrs");
		}
		if (!this.allowPublic) {
			return Optional
				.of(effective.getHostAddress() + " is not in streamgate.egress.allowed-cidrs, the only ranges "
						+ "allowed (streamgate.egress.allow-public=false)");
		}
		return Optional.empty();
	}

	/**
	 * Applies the guard to every connection an HTTP client makes, redirects included:
	 * resolved addresses that may not be reached are dropped, and a host left with none
	 * fails to resolve with {@link EgressRefusedException} before any byte is sent. It is
	 * a resolution failure, not a failed connection, so the channel opened for it is
	 * closed (a refusal thrown after resolution leaked one socket per attempt). The
	 * client runs on the guard's event loops.
	 * @param client the client
	 * @return the guarded client
	 */
	public HttpClient guard(HttpClient client) {
		AddressResolverGroup<?> configured = client.configuration().resolver();
		return client.runOn(loops())
			.resolver(new EgressResolverGroup((configured != null) ? configured : dnsResolver(), this));
	}

	/**
	 * One loop per core: on two cores webhook-3 (750 deliveries a second) read a p99 of
	 * 166 and 184 ms with two loops, 202 and 218 with one.
	 */
	private synchronized LoopResources loops() {
		if (this.loops == null) {
			this.loops = LoopResources.create("streamgate-egress", Runtime.getRuntime().availableProcessors(), true);
		}
		return this.loops;
	}

	/**
	 * The event loops the guarded clients run on, for whatever watches them (the node's
	 * event-loop watchdog): made now if no client was guarded yet.
	 * @return the loops
	 */
	public EventLoopGroup eventLoops() {
		return loops().onClient(true);
	}

	/** On the guard's loops too, so that no step of a connection runs on the server's. */
	private synchronized AddressResolverGroup<?> dnsResolver() {
		if (this.dnsResolver == null) {
			this.dnsResolver = NameResolverProvider.builder().build().newNameResolverGroup(loops(), true);
		}
		return this.dnsResolver;
	}

	/** Stops the event loops of the guarded clients: they make no connection after. */
	@Override
	public synchronized void close() {
		if (this.dnsResolver != null) {
			this.dnsResolver.close();
		}
		if (this.loops != null) {
			this.loops.dispose();
		}
	}

	/**
	 * The addresses of a resolved host that may be reached.
	 * @param resolved what the host resolved to
	 * @return the addresses that may be reached
	 * @throws EgressRefusedException when none may
	 */
	<T extends SocketAddress> List<T> permitted(List<T> resolved) {
		List<T> permitted = new ArrayList<>(resolved.size());
		String reason = null;
		for (T address : resolved) {
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
	}

	/**
	 * Refuses a URL of a request whose host resolves inside the operator's network: the
	 * 400 problem of the request names the field.
	 * @param url the URL
	 * @param pointer the JSON pointer of the URL in the request
	 * @param type the problem type of the request's invalid documents
	 * @return completes when the URL may be reached, or fails with the problem
	 */
	public Mono<Void> require(URI url, String pointer, ProblemType type) {
		return check(
				url)
			.flatMap((refusal) -> refusal
				.<Mono<Void>>map((reason) -> Mono.error(new StreamgateException(type, pointer + " " + reason)
					.withErrors(List.of(new FieldError(pointer, reason)))))
				.orElse(Mono.empty()));
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
		if (NUMERIC_HOST.matcher(host).matches() && !DOTTED_QUAD.matcher(host).matches()) {
			return Mono.just(Optional.of(host + " is a numeric host in another form than a.b.c.d; write the address"));
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
		String name = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
		// A zone (fe80::1%25lo) names an interface, not another address.
		int zone = name.indexOf('%');
		if (zone >= 0) {
			name = name.substring(0, zone);
		}
		// LOCALHOST. is localhost: the root dot and the case do not change the host.
		name = name.toLowerCase(java.util.Locale.ROOT);
		if (name.endsWith(".")) {
			name = name.substring(0, name.length() - 1);
		}
		try {
			return InetAddress.getAllByName(name);
		}
		catch (UnknownHostException ex) {
			return new InetAddress[0];
		}
	}

	/**
	 * An IPv4 address carried in an IPv6 one is checked as the IPv4 address it is:
	 * IPv4-mapped ({@code ::ffff:a.b.c.d}), IPv4-compatible ({@code ::a.b.c.d}), NAT64
	 * ({@code 64:ff9b::/96}) and 6to4 ({@code 2002:AABB:CCDD::/48}).
	 */
	private static InetAddress unmapped(InetAddress address) {
		if (!(address instanceof Inet6Address)) {
			return address;
		}
		byte[] bytes = address.getAddress();
		byte[] ipv4 = null;
		if (zeros(bytes, 0, 10) && bytes[10] == (byte) 0xff && bytes[11] == (byte) 0xff) {
			ipv4 = Arrays.copyOfRange(bytes, 12, 16);
		}
		else if (zeros(bytes, 0, 12) && !zeros(bytes, 12, 15)) {
			ipv4 = Arrays.copyOfRange(bytes, 12, 16);
		}
		else if (bytes[0] == 0x00 && bytes[1] == 0x64 && bytes[2] == (byte) 0xff && bytes[3] == (byte) 0x9b
				&& zeros(bytes, 4, 12)) {
			ipv4 = Arrays.copyOfRange(bytes, 12, 16);
		}
		else if (bytes[0] == 0x20 && bytes[1] == 0x02) {
			ipv4 = Arrays.copyOfRange(bytes, 2, 6);
		}
		if (ipv4 == null) {
			return address;
		}
		try {
			return Inet4Address.getByAddress(ipv4);
		}
		catch (UnknownHostException ex) {
			return address;
		}
	}

	private static boolean zeros(byte[] bytes, int from, int to) {
		for (int i = from; i < to; i++) {
			if (bytes[i] != 0) {
				return false;
			}
		}
		return true;
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
