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
public record PublishResponse(@Schema(example = "41") String id, boolean changed,
		@Schema(description = "batches only") List<String> ids) {

}
