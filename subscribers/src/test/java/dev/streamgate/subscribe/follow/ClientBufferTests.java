package dev.streamgate.subscribe.follow;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ClientBufferTests {

	private final ClientBuffers node = new ClientBuffers(1000, 400);

	@Test
	void aConnectionThatHoldsNothingTakesAnEventLargerThanItsLimit() {
		ClientBuffer buffer = this.node.open(16, () -> 0);
		assertThat(buffer.tryReserve(900)).isTrue();
		assertThat(buffer.used()).isEqualTo(900);
		assertThat(this.node.used()).isEqualTo(900);
	}

	@Test
	void aConnectionThatHoldsSomethingIsRefusedPastItsLimit() {
		ClientBuffer buffer = this.node.open(16, () -> 0);
		assertThat(buffer.tryReserve(300)).isTrue();
		assertThat(buffer.tryReserve(100)).isTrue();
		assertThat(buffer.tryReserve(1)).isFalse();
		buffer.release(300);
		assertThat(buffer.tryReserve(200)).isTrue();
	}

	@Test
	void theNodesBudgetRefusesAConnectionThatIsBehindButNotOneThatKeepsUp() {
		ClientBuffer behind = this.node.open(16, () -> 0);
		ClientBuffer other = this.node.open(16, () -> 0);
		ClientBuffer keepsUp = this.node.open(16, () -> 0);
		assertThat(behind.tryReserve(350)).isTrue();
		assertThat(other.tryReserve(350)).isTrue();
		assertThat(other.tryReserve(40)).isTrue();
		assertThat(behind.tryReserve(300)).as("within its own limit, past the node's").isFalse();
		assertThat(keepsUp.tryReserve(300)).isTrue();
		assertThat(this.node.used()).isEqualTo(1040);
	}

	@Test
	void countedBuffersHoldTheirBytesUntilReleased() {
		ClientBuffer buffer = this.node.open(16, () -> 0);
		ByteBuf first = buffer.counted(new byte[100]);
		ByteBuf second = buffer.counted(new byte[50]);
		assertThat(buffer.used()).isEqualTo(150);
		first.release();
		assertThat(buffer.used()).isEqualTo(50);
		assertThat(this.node.used()).isEqualTo(50);
		second.release();
		assertThat(this.node.used()).isZero();
	}

	@Test
	void closingGivesBackEverythingAndLaterReleasesAndAdditionsCountNothing() {
		ClientBuffer buffer = this.node.open(16, () -> 0);
		assertThat(buffer.tryReserve(200)).isTrue();
		ByteBuf pending = buffer.counted(new byte[100]);
		buffer.close();
		assertThat(this.node.used()).isZero();
		pending.release();
		buffer.add(70);
		buffer.release(200);
		assertThat(this.node.used()).isZero();
		assertThat(buffer.used()).isZero();
	}

	@Test
	void whatTheSocketHasYetToSendCountsForTheConnectionAndTheNode() {
		long[] unwritten = { 0 };
		ClientBuffer buffer = this.node.open(16, () -> unwritten[0]);
		assertThat(buffer.tryReserve(100)).isTrue();
		buffer.release(100);
		unwritten[0] = 350;
		assertThat(buffer.tryReserve(100)).as("350 unsent and 100 more are past 400").isFalse();
		assertThat(this.node.used()).isEqualTo(350);
		unwritten[0] = 0;
		assertThat(buffer.tryReserve(100)).isTrue();
		assertThat(this.node.used()).isEqualTo(100);
		unwritten[0] = 200;
		assertThat(buffer.tryReserve(50)).isTrue();
		buffer.close();
		assertThat(this.node.used()).isZero();
	}

}
