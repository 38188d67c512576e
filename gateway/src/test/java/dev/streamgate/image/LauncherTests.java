package dev.streamgate.image;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bin/streamgate}, the README's start command, in a copy of the project's layout
 * whose jars hold a probe that prints how it was started: the options of
 * {@code gateway/jvm.options} and the arguments always, the extracted application with
 * its class-data archive when the archive was made by the same java, the executable jar
 * otherwise.
 */
class LauncherTests {

	private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

	@TempDir
	Path root;

	private Path app;

	@BeforeEach
	void layOut() throws IOException {
		Files.createDirectories(this.root.resolve("bin"));
		Files.copy(Path.of("..", "bin", "streamgate"), this.root.resolve("bin/streamgate"));
		Files.createDirectories(this.root.resolve("gateway"));
		Files.copy(Path.of("jvm.options"), this.root.resolve("gateway/jvm.options"));
		this.app = this.root.resolve("gateway/target/streamgate");
		Files.createDirectories(this.app);
		writeProbeJar(this.root.resolve("gateway/target/streamgate.jar"));
		writeProbeJar(this.app.resolve("streamgate.jar"));
	}

	@Test
	void withoutAnArchiveTheExecutableJarStartsWithTheJvmOptionsAndTheArguments() throws Exception {
		Run run = launch(Map.of(), "--server.port=0", "token");
		assertThat(run.exitCode()).as(run.output()).isZero();
		assertThat(run.output()).contains("class path: " + this.root.resolve("gateway/target/streamgate.jar"))
			.contains("option: -XX:MaxTenuringThreshold=2")
			.contains("arguments: [--server.port=0, token]")
			.doesNotContain("SharedArchiveFile");
	}

	@Test
	void anArchiveOfTheSameJavaIsMappedWithTheExtractedApplication() throws Exception {
		Path archive = this.app.resolve("streamgate.jsa");
		Process training = new ProcessBuilder(JAVA.toString(), "-XX:ArchiveClassesAtExit=" + archive, "-jar",
				this.app.resolve("streamgate.jar").toString())
			.redirectErrorStream(true)
			.start();
		String trainingOutput = new String(training.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(training.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(archive).as(trainingOutput).isRegularFile();
		Files.writeString(this.app.resolve("jdk"), JAVA.toRealPath() + "\n");
		// -Xshare:on: the JVM refuses to start unless it maps the archive.
		Run run = launch(Map.of("JAVA", JAVA.toString(), "JAVA_OPTS", "-Xshare:on"), "--version");
		assertThat(run.exitCode()).as(run.output()).isZero();
		assertThat(run.output()).contains("class path: " + this.app.resolve("streamgate.jar"))
			.contains("option: -XX:SharedArchiveFile=" + archive)
			.contains("option: -XX:MaxTenuringThreshold=2")
			.contains("arguments: [--version]");
	}

	@Test
	void anArchiveOfAnotherJavaIsLeftAlone() throws Exception {
		Files.writeString(this.app.resolve("streamgate.jsa"), "made by another JDK");
		Files.writeString(this.app.resolve("jdk"), "/opt/another-jdk/bin/java\n");
		Run run = launch(Map.of("JAVA", JAVA.toString()));
		assertThat(run.exitCode()).as(run.output()).isZero();
		assertThat(run.output()).contains("class path: " + this.root.resolve("gateway/target/streamgate.jar"))
			.doesNotContain("SharedArchiveFile");
	}

	private Run launch(Map<String, String> environment, String... args) throws Exception {
		List<String> command = new ArrayList<>(List.of("bash", this.root.resolve("bin/streamgate").toString()));
		command.addAll(List.of(args));
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		builder.environment().remove("JAVA_OPTS");
		builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
		builder.environment().putAll(environment);
		Process process = builder.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		return new Run(process.exitValue(), output);
	}

	/** A jar whose main class is {@link Probe}. */
	private static void writeProbeJar(Path jar) throws IOException {
		Manifest manifest = new Manifest();
		manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
		manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Probe.class.getName());
		String entry = Probe.class.getName().replace('.', '/') + ".class";
		try (OutputStream file = Files.newOutputStream(jar);
				JarOutputStream out = new JarOutputStream(file, manifest);
				InputStream probe = LauncherTests.class.getClassLoader().getResourceAsStream(entry)) {
			out.putNextEntry(new JarEntry(entry));
			probe.transferTo(out);
			out.closeEntry();
		}
	}

	private record Run(int exitCode, String output) {
	}

	/** Prints how this JVM was started. */
	static final class Probe {

		private Probe() {
		}

		public static void main(String[] args) {
			System.out.println("class path: " + System.getProperty("java.class.path"));
			for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
				System.out.println("option: " + option);
			}
			System.out.println("arguments: " + List.of(args));
		}

	}

}
