package dev.streamgate.core.egress;

import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Where pollers and webhooks may connect besides the public internet.
 *
 * @param allowedCidrs address ranges allowed although they are loopback, private,
 * link-local or cloud metadata, e.g. {@code 127.0.0.0/8} for a source on the same machine
 * @param allowPublic whether public addresses may be reached; false makes
 * {@code allowedCidrs} the only ranges allowed (an allow-list for locked-down networks)
 */
@ConfigurationProperties("streamgate.egress")
public record EgressProperties(@DefaultValue List<String> allowedCidrs, @DefaultValue("true") boolean allowPublic) {

}
