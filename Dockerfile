# streamgate container image: a layered Spring Boot application on a JRE, running as a non-root user.
# Build (needs a Docker engine, which the project's CI machine does not have):
#   docker build -t streamgate/streamgate:0.1.0 .
# The same image runs every role; choose with STREAMGATE_ROLES (see helm/streamgate).

FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY .mvn .mvn
COPY mvnw pom.xml ./
COPY core core
COPY publishers publishers
COPY subscribers subscribers
COPY gateway gateway
COPY gatling/pom.xml gatling/pom.xml
COPY helm/pom.xml helm/pom.xml
RUN ./mvnw -B -q -DskipTests package \
 && java -Djarmode=tools -jar gateway/target/streamgate.jar extract --layers --launcher --destination /layers

FROM eclipse-temurin:25-jre
RUN groupadd --system --gid 10001 streamgate \
 && useradd --system --uid 10001 --gid streamgate --no-create-home --shell /usr/sbin/nologin streamgate
WORKDIR /app
# Least-changing layers first, so that a code change rebuilds only the last one.
COPY --from=build /layers/dependencies/ ./
COPY --from=build /layers/spring-boot-loader/ ./
COPY --from=build /layers/snapshot-dependencies/ ./
COPY --from=build /layers/application/ ./
USER 10001:10001
EXPOSE 8080
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75"
ENTRYPOINT ["java", "org.springframework.boot.loader.launch.JarLauncher"]
