# streamgate container image: a layered Spring Boot application on a JRE with a class-data archive of its
# start, running as a non-root user.
# Build with a Docker engine (the project's CI machine has none):
#   docker build -t streamgate/streamgate:0.1.0 .
# The same image runs every role; choose with STREAMGATE_ROLES (see helm/streamgate).

# Without a Docker engine, the build writes the same image with Jib (gateway/pom.xml):
#   ./mvnw -pl gateway jib:build -Dimage.name=registry.example.com/streamgate:0.1.0
# Built and run on the same JDK (17: the one the test suite runs on).
FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY .mvn .mvn
COPY mvnw pom.xml ./
COPY core core
COPY storage-kafka storage-kafka
COPY storage-memory storage-memory
COPY publishers publishers
COPY subscribers subscribers
COPY mercure mercure
COPY gateway gateway
# Maven reads every module of the reactor, so each pom is here (DockerfileTests checks it); only the
# gateway and what it needs are built.
COPY gatling/pom.xml gatling/pom.xml
COPY gatling/simulations/pom.xml gatling/simulations/pom.xml
COPY helm/pom.xml helm/pom.xml
COPY clients/js/pom.xml clients/js/pom.xml
# The class-data archive is trained in the runtime image below, by the java that will use it.
RUN ./mvnw -B -q -DskipTests -Djib.skip -Dhelm.skip -Dtrain.skip -pl gateway -am package \
 && java -Djarmode=tools -jar gateway/target/streamgate.jar extract --layers --destination /layers

FROM eclipse-temurin:17-jre
RUN groupadd --system --gid 10001 streamgate \
 && useradd --system --uid 10001 --gid streamgate --no-create-home --shell /usr/sbin/nologin streamgate
WORKDIR /app
# Least-changing layers first, so that a code change rebuilds only the last one.
COPY --from=build /layers/dependencies/ ./
COPY --from=build /layers/snapshot-dependencies/ ./
COPY --from=build /layers/application/ ./
# /app/streamgate.jar with its lib/, from which the JVM maps classes out of a class-data archive: the
# archive of what one start of every role loads (over a scratch embedded broker, ending once the
# application context is refreshed), made by this image's own java, the only one it serves. The
# gateway starts in about half the time (docs/benchmarks.md, Start-up).
RUN java -XX:ArchiveClassesAtExit=/app/streamgate.jsa -Dspring.context.exit=onRefresh -jar /app/streamgate.jar \
      --server.port=0 --streamgate.embedded-kafka.port=0 --streamgate.embedded-kafka.data-dir=/tmp/train/kafka \
      > /tmp/train.log 2>&1 || { cat /tmp/train.log; exit 1; } \
 && rm -rf /tmp/train /tmp/train.log
COPY --chmod=755 gateway/src/main/jib/usr/local/bin/streamgate /usr/local/bin/streamgate
USER 10001:10001
EXPOSE 8080
# The options of gateway/jvm.options, in JAVA_TOOL_OPTIONS so that the chart's javaOpts can replace them.
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:MaxTenuringThreshold=2"
ENTRYPOINT ["java", "-XX:SharedArchiveFile=/app/streamgate.jsa", "-jar", "/app/streamgate.jar"]
