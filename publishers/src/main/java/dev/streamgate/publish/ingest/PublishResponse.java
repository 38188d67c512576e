package dev.streamgate.publish.ingest;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * The answer to an accepted publication.
 *
 * @param id the position of the last event appended (of the current document when nothing
 * changed)
 * @param changed false when a snapshot topic's document was unchanged and nothing was
 * published
 * @param ids the position of each event of a batch
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PublishResponse(
		@Schema(description = "A cursor: the position after this publication (after the current document when nothing "
				+ "changed); a stream resumed from it (Last-Event-ID) receives exactly what was published after it",
				example = "mxcn41sf:41") String id,
		@Schema(description = "false when a snapshot topic's document was unchanged and nothing was published",
				example = "true") boolean changed,
		@Schema(description = "batches only: the cursor after each publication of the batch",
				example = "[\"mxcn41sf:40\", \"mxcn41sf:41\"]") List<String> ids) {

}
