package dev.streamgate.core.kafka;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Whether Kafka answers, probed in the background so that a health check never waits on
 * it.
 */
public final class KafkaHealthIndicator implements ReactiveHealthIndicator, AutoCloseable {

	private static final Duration PERIOD = Duration.ofSeconds(2);

	private final AtomicReference<Health> health = new AtomicReference<>(
			Health.unknown().withDetail("reason", "not probed yet").build());

	private final Disposable probe;

	KafkaHealthIndicator(Admin admin, String bootstrapServers) {
		this.probe = Flux.interval(Duration.ZERO, PERIOD)
			.onBackpressureDrop()
			.concatMap((tick) -> KafkaEventLog
				.call(() -> admin.describeCluster(new DescribeClusterOptions().timeoutMs(1500)).nodes())
				.map((nodes) -> Health.up()
					.withDetail("bootstrapServers", bootstrapServers)
					.withDetail("brokers", nodes.size())
					.build())
				.onErrorResume((ex) -> Mono.just(Health.down()
					.withDetail("bootstrapServers", bootstrapServers)
					.withDetail("error", ex.getClass().getSimpleName())
					.build())))
			.subscribe(this.health::set);
	}

	public boolean isUp() {
		return this.health.get().getStatus().equals(org.springframework.boot.health.contributor.Status.UP);
	}

	@Override
	public Mono<Health> health() {
		return Mono.just(this.health.get());
	}

	@Override
	public void close() {
		this.probe.dispose();
	}

}
