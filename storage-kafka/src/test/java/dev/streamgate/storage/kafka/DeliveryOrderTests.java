package dev.streamgate.storage.kafka;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DeliveryOrderTests {

	private static final TopicPartition PARTITION = new TopicPartition("streamgate.events", 3);

	private final List<String> delivered = new ArrayList<>();

	private final DeliveryOrder<String> order = new DeliveryOrder<>(this.delivered::add);

	@Test
	void anAcknowledgementAtTheNextOffsetIsDeliveredAtOnceAndItsFetchSkipped() {
		assertThat(this.order.start(PARTITION, 10)).isEqualTo(10);
		this.order.acknowledged(PARTITION, 10, "ack-10");
		this.order.acknowledged(PARTITION, 11, "ack-11");
		assertThat(this.delivered).containsExactly("ack-10", "ack-11");
		this.order.fetched(PARTITION, 10, "fetch-10");
		this.order.fetched(PARTITION, 11, "fetch-11");
		this.order.fetched(PARTITION, 12, "fetch-12");
		assertThat(this.delivered).containsExactly("ack-10", "ack-11", "fetch-12");
	}

	@Test
	void aFetchThatComesFirstMakesTheAcknowledgementANoOp() {
		this.order.start(PARTITION, 0);
		this.order.fetched(PARTITION, 0, "fetch-0");
		this.order.acknowledged(PARTITION, 0, "ack-0");
		assertThat(this.delivered).containsExactly("fetch-0");
	}

	@Test
	void anAcknowledgementAfterAGapWaitsForTheFetchToCloseIt() {
		// offset 5 was written by another node: only the fetch knows it
		this.order.start(PARTITION, 5);
		this.order.acknowledged(PARTITION, 6, "ack-6");
		this.order.acknowledged(PARTITION, 7, "ack-7");
		assertThat(this.delivered).isEmpty();
		this.order.fetched(PARTITION, 5, "fetch-5");
		assertThat(this.delivered).containsExactly("fetch-5", "ack-6", "ack-7");
		this.order.fetched(PARTITION, 6, "fetch-6");
		this.order.fetched(PARTITION, 7, "fetch-7");
		this.order.acknowledged(PARTITION, 8, "ack-8");
		assertThat(this.delivered).containsExactly("fetch-5", "ack-6", "ack-7", "ack-8");
	}

	@Test
	void aGapTheFetchSkipsOverIsTheFetchsToDeliverAcrossNotTheAcknowledgements() {
		// 5 is a transaction's marker, which a read_committed consumer never returns
		this.order.start(PARTITION, 5);
		this.order.acknowledged(PARTITION, 6, "ack-6");
		assertThat(this.delivered).isEmpty();
		this.order.fetched(PARTITION, 6, "fetch-6");
		this.order.acknowledged(PARTITION, 7, "ack-7");
		assertThat(this.delivered).containsExactly("fetch-6", "ack-7");
	}

	@Test
	void aPartitionWhosePositionIsNotKnownIgnoresAcknowledgements() {
		this.order.acknowledged(PARTITION, 0, "ack-0");
		assertThat(this.delivered).isEmpty();
		this.order.fetched(PARTITION, 0, "fetch-0");
		this.order.acknowledged(PARTITION, 1, "ack-1");
		assertThat(this.delivered).containsExactly("fetch-0", "ack-1");
		this.order.stop(PARTITION);
		this.order.acknowledged(PARTITION, 2, "ack-2");
		assertThat(this.delivered).containsExactly("fetch-0", "ack-1");
	}

	@Test
	void aStartAfterAcknowledgementsDeliveredAheadBeginsPastThem() {
		this.order.start(PARTITION, 20);
		this.order.acknowledged(PARTITION, 20, "ack-20");
		// the consumer has not fetched 20 yet: a listener joining now has seen it
		assertThat(this.order.start(PARTITION, 20)).isEqualTo(21);
	}

	@Test
	void aConsumerThatGoesBackDeliversAgainFromThere() {
		this.order.start(PARTITION, 0);
		this.order.fetched(PARTITION, 0, "fetch-0");
		this.order.fetched(PARTITION, 1, "fetch-1");
		this.order.acknowledged(PARTITION, 3, "ack-3");
		this.order.fetched(PARTITION, 0, "again-0");
		this.order.fetched(PARTITION, 1, "again-1");
		this.order.fetched(PARTITION, 2, "fetch-2");
		assertThat(this.delivered).containsExactly("fetch-0", "fetch-1", "again-0", "again-1", "fetch-2");
	}

	@Test
	void deliveriesAheadOfAFetchThatStallsAreBoundedAndTheFetchCatchesUp() {
		this.order.start(PARTITION, 0);
		int max = DeliveryOrder.AHEAD_MAX;
		for (int offset = 0; offset < max + 2; offset++) {
			this.order.acknowledged(PARTITION, offset, "ack-" + offset);
		}
		assertThat(this.delivered).hasSize(max);
		for (int offset = 0; offset < max + 2; offset++) {
			this.order.fetched(PARTITION, offset, "fetch-" + offset);
		}
		// the one refused waits for the fetch; the next, kept behind it, goes with it
		assertThat(this.delivered).hasSize(max + 2).endsWith("fetch-" + max, "ack-" + (max + 1));
		this.order.acknowledged(PARTITION, max + 2, "ack-" + (max + 2));
		assertThat(this.delivered).last().isEqualTo("ack-" + (max + 2));
	}

	@Test
	void acknowledgementsWaitingForAGapAreBounded() {
		this.order.start(PARTITION, 0);
		for (int offset = 1; offset <= DeliveryOrder.EARLY_MAX + 10; offset++) {
			this.order.acknowledged(PARTITION, offset, "ack-" + offset);
		}
		this.order.fetched(PARTITION, 0, "fetch-0");
		assertThat(this.delivered).hasSize(1 + DeliveryOrder.EARLY_MAX);
		// the rest were not kept: the fetch brings them
		long next = DeliveryOrder.EARLY_MAX + 1;
		this.order.fetched(PARTITION, next, "fetch-" + next);
		assertThat(this.delivered).last().isEqualTo("fetch-" + next);
	}

}
