package dev.streamgate.architecture;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

@AnalyzeClasses(packages = "dev.streamgate", importOptions = ImportOption.DoNotIncludeTests.class)
class KafkaBoundaryTests {

	static final String BOUNDARY = "dev.streamgate.core.kafka..";

	@ArchTest
	static final ArchRule onlyTheKafkaBoundaryTalksToKafka = noClasses().that()
		.resideOutsideOfPackage(BOUNDARY)
		.should()
		.dependOnClassesThat()
		.resideInAnyPackage("org.apache.kafka..", "kafka..")
		.because("the rest of streamgate speaks TopicStore and EventLog, so Kafka clients can change in one place");

}
