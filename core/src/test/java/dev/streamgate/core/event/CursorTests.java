package dev.streamgate.core.event;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A cursor's text: the last delivered offset of each partition, joined by dots, read back
 * as it was written.
 */
class CursorTests {

	@Test
	void aCursorIsWrittenAsItsOffsetsJoinedByDots() {
		assertThat(Cursor.beforeAll(1)).hasToString("-1");
		assertThat(Cursor.beforeAll(3).after(1, 41)).hasToString("-1.41.-1");
		assertThat(Cursor.beforeAll(2).after(0, Long.MAX_VALUE).after(1, 0)).hasToString(Long.MAX_VALUE + ".0");
	}

	@Test
	void itsTextReadsBackAsTheSameCursor() {
		Cursor cursor = Cursor.beforeAll(4).after(0, 7).after(2, 123456789012L);
		assertThat(Cursor.parse(cursor.toString(), 4)).isEqualTo(cursor);
	}

	@Test
	void textThatIsNoCursorIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> Cursor.parse("1.x", 2));
		assertThatIllegalArgumentException().isThrownBy(() -> Cursor.parse("1.2.3", 2));
		assertThatIllegalArgumentException().isThrownBy(() -> Cursor.parse("-2", 1));
	}

}
