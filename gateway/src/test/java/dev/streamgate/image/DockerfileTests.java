package dev.streamgate.image;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Dockerfile builds the current reactor (no Docker engine here to run it): Maven
 * reads every module, so every module's pom must be in the build stage, and the image
 * runs on the JDK it was built with, from the class-data archive that its own java
 * trained.
 */
class DockerfileTests {

	private static final Path ROOT = Path.of("..");

	@Test
	void theBuildStageHasEveryModuleOfTheReactor() throws Exception {
		String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
		Matcher module = Pattern.compile("<module>([^<]+)</module>").matcher(Files.readString(ROOT.resolve("pom.xml")));
		List<String> modules = module.results().map((result) -> result.group(1)).toList();
		assertThat(modules).isNotEmpty();
		for (String name : modules) {
			assertThat(dockerfile).as("the Dockerfile copies module %s (or its pom)", name)
				.containsPattern(
						"(?m)^COPY " + Pattern.quote(name) + "(/pom\\.xml)? " + Pattern.quote(name) + "(/pom\\.xml)?$");
		}
	}

	@Test
	void theImageRunsOnTheJdkItWasBuiltWith() throws Exception {
		String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
		List<String> versions = Pattern.compile("(?m)^FROM eclipse-temurin:(\\d+)-")
			.matcher(dockerfile)
			.results()
			.map((result) -> result.group(1))
			.toList();
		assertThat(versions).hasSize(2);
		assertThat(versions.get(1)).as("the runtime image's JDK").isEqualTo(versions.get(0));
	}

	@Test
	void theRuntimeImageTrainsTheArchiveItsEntrypointMaps() throws Exception {
		String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
		String runtime = dockerfile.substring(dockerfile.lastIndexOf("\nFROM "));
		Matcher trained = Pattern.compile("(?m)^RUN java -XX:ArchiveClassesAtExit=(\\S+) .*-jar (\\S+)")
			.matcher(runtime);
		assertThat(trained.find()).as("the runtime stage trains the archive with its own java").isTrue();
		assertThat(runtime).contains("ENTRYPOINT [\"java\", \"-XX:SharedArchiveFile=" + trained.group(1)
				+ "\", \"-jar\", \"" + trained.group(2) + "\"]");
		assertThat(Files.readString(Path.of("src/main/jib/usr/local/bin/streamgate")))
			.contains("-XX:SharedArchiveFile=\"$app/" + Path.of(trained.group(1)).getFileName() + "\" -jar \"$app/"
					+ Path.of(trained.group(2)).getFileName() + "\"");
	}

}
