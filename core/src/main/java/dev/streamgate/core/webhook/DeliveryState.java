package dev.streamgate.core.webhook;

import java.time.Instant;

/**
 * How far a webhook's deliveries have gone, committed only after the deliveries it counts
 * were answered.
 *
 * @param epoch the webhook epoch this state belongs to
 * @param cursor the cursor of the last event delivered (or given up on)
 * @param snapshotSent whether the epoch's opening snapshot went out
 * @param failingSince when the webhook started failing without a success since, or
 * {@code null} while it succeeds
 * @param delivered deliveries answered with 2xx in this epoch
 * @param failed events given up on in this epoch
 */
public record DeliveryState(long epoch, String cursor, boolean snapshotSent, Instant failingSince, long delivered,
		long failed) {

	/**
	 * The state at the start of a webhook's current epoch.
	 * @param webhook the webhook
	 * @return its starting state
	 */
	public static DeliveryState start(Webhook webhook) {
		return new DeliveryState(webhook.epoch(), webhook.start(), !webhook.startWithSnapshot(), null, 0, 0);
	}

	public DeliveryState delivered(String newCursor) {
		return new DeliveryState(this.epoch, newCursor, true, null, this.delivered + 1, this.failed);
	}

	/**
	 * Past an event the webhook did not ask for (its types or filter).
	 * @param newCursor the cursor after the event
	 * @return the state
	 */
	public DeliveryState passed(String newCursor) {
		return new DeliveryState(this.epoch, newCursor, true, this.failingSince, this.delivered, this.failed);
	}

	public DeliveryState gaveUp(String newCursor) {
		return new DeliveryState(this.epoch, newCursor, true, this.failingSince, this.delivered, this.failed + 1);
	}

	public DeliveryState failing(Instant since) {
		return new DeliveryState(this.epoch, this.cursor, this.snapshotSent,
				(this.failingSince != null) ? this.failingSince : since, this.delivered, this.failed);
	}

}
