package dev.streamgate.storage.kafka;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.streamgate.core.lease.OnDemandMembership;
import dev.streamgate.core.storage.Leases.Membership;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class KafkaLeasesIntegrationTests {

	private static final List<String> KEYS = IntStream.range(0, 40).mapToObj((i) -> "topic-" + i).toList();

	private final List<Membership> members = new CopyOnWriteArrayList<>();

	private KafkaLeases leases;

	private Admin admin;

	private String prefix;

	@BeforeEach
	void createLeasesTopic() {
		this.prefix = TestKafka.uniquePrefix();
		KafkaClients clients = new KafkaClients(TestKafka.bootstrapServers(), Map.of(),
				ConfigTopicsIntegrationTests.properties(this.prefix));
		this.admin = clients.admin();
		new ConfigTopics(this.admin, clients, TestKafka.eventStorage()).ensure();
		this.leases = new KafkaLeases(clients);
	}

	@AfterEach
	void leave() {
		this.members.forEach(Membership::close);
		this.admin.close();
	}

	private Membership join(String group, AtomicInteger changes) {
		Membership member = this.leases.join(group, changes::incrementAndGet);
		this.members.add(member);
		return member;
	}

	private static long owned(Membership member) {
		return KEYS.stream().filter(member::owns).count();
	}

	@Test
	void aSingleMemberOwnsEveryKey() {
		AtomicInteger changes = new AtomicInteger();
		Membership member = join("pollers", changes);
		await().atMost(Duration.ofSeconds(20)).until(() -> owned(member) == KEYS.size());
		assertThat(changes).hasPositiveValue();
	}

	@Test
	void aMemberSendsNoFetchForTheLeasesItOwns() throws Exception {
		Membership member = join("quiet", new AtomicInteger());
		await().atMost(Duration.ofSeconds(20)).until(() -> owned(member) == KEYS.size());
		// The leases topic holds no data: a member that fetched it anyway asked the
		// broker twice a second, for nothing, on every node.
		long fetches = fetches("quiet");
		Thread.sleep(3000);
		assertThat(fetches("quiet")).as("fetch requests of the member").isEqualTo(fetches);
		assertThat(owned(member)).isEqualTo(KEYS.size());
	}

	private static long fetches(String group) throws Exception {
		MBeanServer server = ManagementFactory.getPlatformMBeanServer();
		Set<ObjectName> names = server.queryNames(new ObjectName(
				"kafka.consumer:type=consumer-fetch-manager-metrics,client-id=streamgate-leases-" + group + "-*"),
				null);
		assertThat(names).hasSize(1);
		return ((Number) server.getAttribute(names.iterator().next(), "fetch-total")).longValue();
	}

	@Test
	void twoMembersShareTheKeysWithoutOverlapAndTheSurvivorTakesAllWhenOneLeaves() {
		Membership first = join("pollers", new AtomicInteger());
		await().atMost(Duration.ofSeconds(20)).until(() -> owned(first) == KEYS.size());
		AtomicInteger secondChanges = new AtomicInteger();
		Membership second = join("pollers", secondChanges);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> owned(second) > 0 && owned(first) + owned(second) == KEYS.size());
		for (String key : KEYS) {
			assertThat(first.owns(key) && second.owns(key)).as("%s owned twice", key).isFalse();
		}
		assertThat(owned(first)).isPositive();
		second.close();
		await().atMost(Duration.ofSeconds(20)).until(() -> owned(first) == KEYS.size());
		assertThat(owned(second)).isZero();
	}

	@Test
	void aMemberThatLeavesHandsItsLeasesOverWithinTwoSeconds() {
		// The survivor learns of the rebalance at its next heartbeat and joins it at its
		// next poll: both come often enough, however long the session timeout.
		Membership first = join("handover", new AtomicInteger());
		await().atMost(Duration.ofSeconds(20)).until(() -> owned(first) == KEYS.size());
		Membership second = join("handover", new AtomicInteger());
		await().atMost(Duration.ofSeconds(30))
			.until(() -> owned(second) > 0 && owned(first) + owned(second) == KEYS.size());
		long left = System.nanoTime();
		second.close();
		await().atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> owned(first) == KEYS.size());
		Duration handover = Duration.ofNanos(System.nanoTime() - left);
		System.out.println("Leases handed over " + handover.toMillis() + " ms after a member left");
		assertThat(handover).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void anOnDemandMemberIsInTheGroupOnlyWhileThereIsWork() throws Exception {
		OnDemandMembership member = new OnDemandMembership(this.leases, "on-demand", () -> {
		}, Duration.ofMillis(500));
		this.members.add(member);
		member.workExists(false);
		assertThat(member.isMember()).isFalse();
		assertThat(groupMembers("on-demand")).as("members of a group nobody needed").isZero();
		member.workExists(true);
		await().atMost(Duration.ofSeconds(20)).until(() -> owned(member) == KEYS.size());
		assertThat(groupMembers("on-demand")).isEqualTo(1);
		// Work gone and back within the linger: the member stays.
		member.workExists(false);
		member.workExists(true);
		Thread.sleep(1000);
		assertThat(member.isMember()).isTrue();
		assertThat(owned(member)).isEqualTo(KEYS.size());
		// Gone for longer: it leaves the group.
		member.workExists(false);
		await().atMost(Duration.ofSeconds(20)).until(() -> !member.isMember() && groupMembers("on-demand") == 0);
		assertThat(owned(member)).isZero();
	}

	/** The members of a group as Kafka's coordinator sees them (0 for no group). */
	private int groupMembers(String group) throws Exception {
		try {
			return this.admin.describeConsumerGroups(List.of(this.prefix + group))
				.all()
				.get()
				.get(this.prefix + group)
				.members()
				.size();
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof GroupIdNotFoundException) {
				return 0;
			}
			throw ex;
		}
	}

	@Test
	void groupsAreIndependent() {
		Membership poller = join("pollers", new AtomicInteger());
		Membership webhooks = join("webhooks", new AtomicInteger());
		await().atMost(Duration.ofSeconds(20))
			.until(() -> owned(poller) == KEYS.size() && owned(webhooks) == KEYS.size());
	}

}
