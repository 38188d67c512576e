package dev.streamgate.web;

import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Which browser origins may call the API and open streams.
 *
 * @param allowedOrigins origins, or {@code *} for any; list origins explicitly to allow
 * cookies (the stream's {@code streamgate_token})
 */
@ConfigurationProperties("streamgate.cors")
public record CorsProperties(@DefaultValue("*") List<String> allowedOrigins) {

}
