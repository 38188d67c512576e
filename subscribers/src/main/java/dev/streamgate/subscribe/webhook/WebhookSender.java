package dev.streamgate.subscribe.webhook;

import java.io.ByteArrayOutputStream;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;

import javax.net.ssl.SSLException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.timeout.ReadTimeoutException;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

import dev.streamgate.core.egress.EgressGuard;
import dev.streamgate.core.egress.EgressRefusedException;
import dev.streamgate.core.oauth.AccessTokenException;
import dev.streamgate.core.oauth.AccessTokens;
import dev.streamgate.core.oauth.ClientCredentials;
import dev.streamgate.core.storage.KafkaSink;
import dev.streamgate.core.topic.KafkaEndpoint;
import dev.streamgate.core.webhook.Webhook;

/**
 * Sends one attempt of a delivery: a signed POST over pooled connections, bounded by the
 * per-request timeout, redirects not followed. It never fails: every outcome, transport
 * failures included, is a {@link Result}.
 * <p>
 * Its connections run on the egress guard's event loops, not on the ones that serve the
 * node's HTTP requests (see {@link EgressGuard}).
 */
public class WebhookSender implements AutoCloseable {

	private static final Duration MAX_RETRY_AFTER = Duration.ofHours(1);

	/** How much of an answer's body an attempt keeps. */
	static final int RESPONSE_PREFIX = 1024;

	private final HttpClient http;

	private final ConnectionProvider pool;

	private final Duration timeout;

	private final Clock clock;

	private final String userAgent;

	private final AccessTokens tokens;

	private final KafkaSink kafka;

	/**
	 * Creates a sender.
	 * @param guard the egress guard every connection passes
	 * @param properties timeouts and pool size
	 * @param userAgent the {@code User-Agent} of deliveries
	 * @param clock the clock of {@code webhook-timestamp}
	 * @param tokens access tokens for webhooks with client credentials, {@code null}
	 * where none has them (tests)
	 * @param kafka writes deliveries of subscriptions into Kafka topics, {@code null}
	 * where none has one (tests)
	 */
	public WebhookSender(EgressGuard guard, WebhookProperties properties, String userAgent, Clock clock,
			AccessTokens tokens, KafkaSink kafka) {
		this.tokens = tokens;
		this.kafka = kafka;
		this.timeout = properties.timeout();
		this.userAgent = userAgent;
		this.clock = clock;
		this.pool = ConnectionProvider.builder("streamgate-webhook")
			.maxConnections(properties.maxConnections())
			.pendingAcquireMaxCount(-1)
			.maxIdleTime(Duration.ofSeconds(30))
			.build();
		// Every connection is checked by the egress guard after DNS, on its loops.
		this.http = guard.guard(HttpClient.create(this.pool)
			.option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(this.timeout.toMillis(), Integer.MAX_VALUE))
			.responseTimeout(this.timeout)
			.followRedirect(false));
	}

	/**
	 * Sends one attempt. A webhook with client credentials sends its bearer token; a 401
	 * drops the token and the delivery is sent once more with a new one, within the same
	 * attempt.
	 * @param webhook the webhook
	 * @param delivery what to send
	 * @return the outcome
	 */
	public Mono<Result> send(Webhook webhook, Delivery delivery) {
		if (webhook.target() instanceof Webhook.KafkaTarget kafka) {
			return sendToKafka(webhook, kafka.endpoint(), delivery);
		}
		// A target is either kind.
		Webhook.HttpTarget http = (Webhook.HttpTarget) webhook.target();
		ClientCredentials oauth2 = http.oauth2();
		if (oauth2 == null) {
			return post(webhook, http.url(), delivery, null);
		}
		long started = System.nanoTime();
		return this.tokens.token(oauth2)
			.flatMap((token) -> post(webhook, http.url(), delivery, token).flatMap((result) -> {
				if (result.statusCode() == null || result.statusCode() != 401) {
					return Mono.just(result);
				}
				this.tokens.reject(oauth2, token);
				return this.tokens.token(oauth2).flatMap((renewed) -> post(webhook, http.url(), delivery, renewed));
			}))
			.onErrorResume(AccessTokenException.class, (ex) -> Mono
				.just(new Result(null, elapsed(started), "no access token: " + ex.getMessage(), null, null)));
	}

	/**
	 * A delivery into a Kafka topic: the envelope as the record's value, the streamgate
	 * topic id as its key (one topic, one partition, in order), and the delivery's id,
	 * type and topic as headers beside the registered ones.
	 */
	private Mono<Result> sendToKafka(Webhook webhook, KafkaEndpoint target, Delivery delivery) {
		long started = System.nanoTime();
		if (this.kafka == null) {
			return Mono.just(new Result(null, 0, "this node cannot write to Kafka targets", null, null));
		}
		Map<String, String> headers = new LinkedHashMap<>(webhook.headers());
		headers.put("streamgate-id", delivery.messageId());
		headers.put("streamgate-type", delivery.type());
		headers.put("streamgate-topic", webhook.topicId());
		// A binary-mode CloudEvent: the Kafka binding names the HTTP binding's ce-*
		// headers ce_*.
		delivery.headers()
			.forEach((name, value) -> headers.put(name.startsWith("ce-") ? "ce_" + name.substring(3) : name, value));
		if (!"application/json".equals(delivery.contentType())) {
			headers.put("content-type", delivery.contentType());
		}
		return this.kafka.send(target, webhook.topicId(), delivery.body(), headers)
			.then(Mono.fromSupplier(() -> new Result(null, elapsed(started), null, null, null)))
			.onErrorResume((ex) -> Mono.just(new Result(null, elapsed(started), ex.getMessage(), null, null)));
	}

	private Mono<Result> post(Webhook webhook, String url, Delivery delivery, String token) {
		return Mono.defer(() -> {
			long started = System.nanoTime();
			long timestamp = this.clock.instant().getEpochSecond();
			String signature = Signatures.sign(webhook.secret(), delivery.messageId(), timestamp, delivery.body());
			return this.http.headers((headers) -> {
				webhook.headers().forEach(headers::set);
				if (token != null) {
					headers.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + token);
				}
				delivery.headers().forEach(headers::set);
				headers.set(HttpHeaderNames.CONTENT_TYPE, delivery.contentType())
					.set(HttpHeaderNames.USER_AGENT, this.userAgent)
					.set("webhook-id", delivery.messageId())
					.set("webhook-timestamp", Long.toString(timestamp))
					.set("webhook-signature", signature);
			})
				.post()
				.uri(url)
				.send(Mono.fromSupplier(() -> Unpooled.wrappedBuffer(delivery.body())))
				.response(
						(response, content) -> content.reduceWith(ByteArrayOutputStream::new, WebhookSender::keepPrefix)
							.map((prefix) -> new Result(response.status().code(), elapsed(started), null,
									retryAfter(response.responseHeaders().get(HttpHeaderNames.RETRY_AFTER)),
									(prefix.size() > 0) ? prefix.toString(StandardCharsets.UTF_8) : null)))
				.next()
				.timeout(this.timeout.plusMillis(500))
				.map((result) -> result.isSuccess() ? result
						: result.withError("the endpoint answered " + result.statusCode()))
				.onErrorResume((ex) -> Mono.just(new Result(null, elapsed(started), describe(ex), null, null)));
		});
	}

	/**
	 * Keeps the first {@link #RESPONSE_PREFIX} bytes of the answer for the attempts log
	 * (a receiver's error message is what a person debugging a webhook needs) and reads
	 * the rest without keeping it, so that the connection can be reused.
	 */
	private static ByteArrayOutputStream keepPrefix(ByteArrayOutputStream prefix, ByteBuf chunk) {
		int take = Math.min(chunk.readableBytes(), RESPONSE_PREFIX - prefix.size());
		if (take > 0) {
			byte[] bytes = new byte[take];
			chunk.getBytes(chunk.readerIndex(), bytes);
			prefix.write(bytes, 0, take);
		}
		return prefix;
	}

	/** Closes the pooled connections. */
	@Override
	public void close() {
		this.pool.dispose();
	}

	private static long elapsed(long started) {
		return Duration.ofNanos(System.nanoTime() - started).toMillis();
	}

	private Duration retryAfter(String header) {
		if (header == null || header.isBlank()) {
			return null;
		}
		Duration delay;
		try {
			delay = Duration.ofSeconds(Long.parseLong(header.trim()));
		}
		catch (NumberFormatException ex) {
			try {
				delay = Duration.between(this.clock.instant(),
						ZonedDateTime.parse(header.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
			}
			catch (DateTimeParseException notADate) {
				return null;
			}
		}
		if (delay.isNegative()) {
			return Duration.ZERO;
		}
		return (delay.compareTo(MAX_RETRY_AFTER) > 0) ? MAX_RETRY_AFTER : delay;
	}

	private String describe(Throwable ex) {
		if (ex instanceof EgressRefusedException) {
			return "refused by the egress guard: " + ex.getMessage();
		}
		if (ex instanceof TimeoutException || ex instanceof ReadTimeoutException
				|| ex instanceof ConnectTimeoutException) {
			return "no answer within " + this.timeout;
		}
		if (ex instanceof UnknownHostException) {
			return "unknown host: " + ex.getMessage();
		}
		if (ex instanceof ConnectException) {
			return "connection refused";
		}
		if (ex instanceof SSLException) {
			return "TLS failed: " + ex.getMessage();
		}
		Throwable cause = ex.getCause();
		if (cause != null && cause != ex) {
			return describe(cause);
		}
		return ex.getClass().getSimpleName() + ((ex.getMessage() != null) ? ": " + ex.getMessage() : "");
	}

	/**
	 * What one attempt came to.
	 *
	 * @param statusCode the answer's status, {@code null} when none came
	 * @param durationMs how long it took
	 * @param error why it failed, {@code null} on success
	 * @param retryAfter the answer's {@code Retry-After}, when it had one
	 * @param responseBody the first 1 KiB of the answer's body, {@code null} when it had
	 * none
	 */
	public record Result(Integer statusCode, long durationMs, String error, Duration retryAfter, String responseBody) {

		/**
		 * Whether the delivery was taken: a 2xx answer, or (with no status) a Kafka
		 * acknowledgement.
		 * @return whether it succeeded
		 */
		public boolean isSuccess() {
			if (this.statusCode == null) {
				return this.error == null;
			}
			return this.statusCode >= 200 && this.statusCode < 300;
		}

		Result withError(String newError) {
			return new Result(this.statusCode, this.durationMs, newError, this.retryAfter, this.responseBody);
		}

	}

}
