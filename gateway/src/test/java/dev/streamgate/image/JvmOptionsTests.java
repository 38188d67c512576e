package dev.streamgate.image;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gateway/jvm.options} is what the gateway runs with everywhere: a file the JVM
 * takes as it is, passed by the README's standalone command, and repeated in the
 * container image's and the Helm chart's JAVA_TOOL_OPTIONS.
 */
class JvmOptionsTests {

	private static final Path OPTIONS = Path.of("jvm.options");

	@Test
	void theJvmTakesTheFileAsAnArgumentFileAndSetsEachOption() throws Exception {
		List<String> options = options();
		assertThat(options).isNotEmpty();
		Process java = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"@" + OPTIONS.toAbsolutePath(), "-XX:+PrintFlagsFinal", "-version")
			.redirectErrorStream(true)
			.start();
		String flags = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(java.waitFor(30, TimeUnit.SECONDS)).isTrue();
		assertThat(java.exitValue()).as(flags).isZero();
		for (String option : options) {
			Matcher flag = Pattern.compile("^-XX:(\\w+)=(.+)$").matcher(option);
			assertThat(flag.matches()).as("a -XX:Name=value option: " + option).isTrue();
			assertThat(flags).as(option)
				.containsPattern("(?m)^\\s*\\S+\\s+" + flag.group(1) + "\\s+= " + Pattern.quote(flag.group(2))
						+ "\\s.*\\{command line\\}");
		}
	}

	@Test
	void theReadmesStandaloneCommandPassesTheFile() throws IOException {
		// bin/streamgate passes the file (LauncherTests), and the README names the plain
		// jar's command with it too.
		assertThat(Files.readString(Path.of("..", "README.md"))).contains("package && bin/streamgate\n")
			.contains("java @gateway/jvm.options -jar\ngateway/target/streamgate.jar");
		assertThat(Files.readString(Path.of("..", "bin", "streamgate"))).contains("\"@$root/gateway/jvm.options\"");
	}

	@Test
	void theImageAndTheChartCarryEveryOption() throws IOException {
		List<String> options = options();
		String dockerfile = Files.readString(Path.of("..", "Dockerfile"));
		String jib = between(Files.readString(Path.of("pom.xml")), "<JAVA_TOOL_OPTIONS>", "</JAVA_TOOL_OPTIONS>");
		List<String> chart = Files.readAllLines(Path.of("..", "helm", "streamgate", "values.yaml"))
			.stream()
			.filter((line) -> line.trim().startsWith("javaOpts:"))
			.toList();
		assertThat(chart).as("one javaOpts per role").hasSize(6);
		for (String option : options) {
			assertThat(dockerfile).containsPattern("(?m)^ENV JAVA_TOOL_OPTIONS=\".*" + Pattern.quote(option));
			assertThat(jib).contains(option);
			assertThat(chart).allSatisfy((line) -> assertThat(line).contains(option));
		}
	}

	/** The file's options: each line without its comment, blank lines left out. */
	private static List<String> options() throws IOException {
		return Files.readAllLines(OPTIONS)
			.stream()
			.map((line) -> line.replaceFirst("#.*", "").trim())
			.filter((line) -> !line.isEmpty())
			.toList();
	}

	private static String between(String text, String start, String end) {
		int from = text.indexOf(start);
		assertThat(from).as(start).isNotNegative();
		return text.substring(from + start.length(), text.indexOf(end, from));
	}

}
