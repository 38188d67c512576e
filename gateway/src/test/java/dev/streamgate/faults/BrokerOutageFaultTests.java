package dev.streamgate.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import dev.streamgate.bench.sink.WebhookSink;
import dev.streamgate.support.BrokerProcess;
import dev.streamgate.support.GatewayProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Kafka broker is killed for 30 s under steady load and started again. Publishes
 * answer 503 with Retry-After during the outage (quickly, never hanging, never 500),
 * readiness shows the outage, nothing that got a 202 is lost, and streams and webhooks
 * carry on afterwards without anyone touching them.
 */
@Tag("faults")
class BrokerOutageFaultTests {

	private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

	@Test
	void aBrokerOutageLosesNoAcknowledgedEventAndHealsByItself(@TempDir Path dir) throws InterruptedException {
		Duration outage = Duration.ofSeconds(30);
		try (BrokerProcess broker = BrokerProcess.start(dir.resolve("kafka"), dir.resolve("broker.log"));
				WebhookSink sink = WebhookSink.start("127.0.0.1", 0);
				GatewayProcess gateway = GatewayProcess.startReady(dir.resolve("gateway.log"),
						GatewayCrashFaultTests.withBroker(new String[] { "--streamgate.security.enabled=false",
								"--streamgate.egress.allowed-cidrs=127.0.0.1/32", "--streamgate.kafka.write-timeout=3s",
								"--streamgate.webhook.retry-schedule=1s,1s,1s,1s,1s,1s,1s,1s,1s,1s" }, broker))) {
			String url = gateway.baseUrl();
			Faults.post(url, "/api/v1/topics",
					"{\"id\":\"outage\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}");
			sink.endpoint("w", SECRET);
			Faults.post(url, "/api/v1/topics/outage/webhooks",
					"{\"url\":\"" + sink.url("w") + "\",\"secret\":\"" + SECRET + "\"}");
			List<ResumingSubscriber> subscribers = List.of(new ResumingSubscriber(url, "outage"),
					new ResumingSubscriber(url, "outage"));
			Map<Long, Integer> readiness = new ConcurrentHashMap<>();
			Disposable probing = Flux.interval(Duration.ofMillis(500))
				.publishOn(Schedulers.boundedElastic())
				.subscribe((tick) -> readiness.put(System.currentTimeMillis(),
						Faults.status(url, "/actuator/health/readiness")));
			SteadyPublisher publisher = new SteadyPublisher(url, "outage", Duration.ofMillis(50));
			Thread.sleep(5000);
			long down = System.currentTimeMillis();
			broker.kill();
			Thread.sleep(outage.toMillis());
			long up = System.currentTimeMillis();
			broker.restart();
			await("ready again").atMost(Duration.ofSeconds(60))
				.pollInterval(Duration.ofMillis(500))
				.until(() -> Faults.status(url, "/actuator/health/readiness") == 200);
			long ready = System.currentTimeMillis();
			int acknowledgedBeforeRecovery = publisher.acknowledged().size();
			await("publishes acknowledged again").atMost(Duration.ofSeconds(60))
				.until(() -> publisher.acknowledged().size() > acknowledgedBeforeRecovery + 50);
			publisher.close();
			probing.dispose();

			assertThat(publisher.unexpected()).as("answers other than 202 and 503").isEmpty();
			assertThat(publisher.unanswered()).as("publishes without an answer").isEmpty();
			assertThat(publisher.refused()).as("503 during the outage").isNotEmpty();
			assertThat(publisher.slowestAnswerMillis()).as("slowest publish answer, ms").isLessThan(15_000);
			assertThat(readiness).as("readiness went down during the outage")
				.hasEntrySatisfying(new org.assertj.core.api.Condition<>((at) -> at > down && at < up, "in outage"),
						new org.assertj.core.api.Condition<>((status) -> status == 503, "503"));
			int extra = 0;
			for (int s = 0; s < subscribers.size(); s++) {
				extra += Accounts.assertExactlyOnce("subscriber " + s, subscribers.get(s), publisher);
			}
			int duplicates = Accounts.assertAtLeastOnceInOrder(sink, "w", publisher);
			List<Long> notReady = new ArrayList<>(readiness.entrySet()
				.stream()
				.filter((entry) -> entry.getValue() != 200)
				.map(Map.Entry::getKey)
				.sorted()
				.toList());
			System.out
				.printf("Broker down %d s: %d publishes, %d acknowledged, %d answered 503 (slowest answer %d ms), "
						+ "0 unanswered; readiness not ready from +%d ms to +%d ms after the kill, ready %d ms after "
						+ "the restart; %d SSE subscribers got every acknowledged event exactly once (%d refused "
						+ "events seen in all); the webhook got all in order (%d duplicates)%n", outage.toSeconds(),
						publisher.sent(), publisher.acknowledged().size(), publisher.refused().size(),
						publisher.slowestAnswerMillis(), notReady.get(0) - down,
						notReady.get(notReady.size() - 1) - down, ready - up, subscribers.size(), extra, duplicates);
			subscribers.forEach(ResumingSubscriber::close);
		}
	}

}
