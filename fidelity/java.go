package fidelity

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// KafkaVersion is the Apache Kafka release the broker and the Java client
// come from; fidelity/java/pom.xml resolves the same one.
const KafkaVersion = "4.3.1"

// Java is the built Java side: the classpath holding Kafka's broker and
// client and this suite's consumer and producer programs.
type Java struct {
	Classpath string
}

// BuildJava builds fidelity/java with Maven (`mvn -q package`), which
// resolves Kafka's artifacts into Maven's local repository, and returns
// its classpath. dir is the fidelity/java directory.
func BuildJava(dir string) (*Java, error) {
	cmd := exec.Command("mvn", "-B", "-q", "package", "-Dkafka.version="+KafkaVersion)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("building %s with Maven: %w", dir, err)
	}
	cp, err := os.ReadFile(filepath.Join(dir, "target", "classpath.txt"))
	if err != nil {
		return nil, fmt.Errorf("reading the classpath Maven wrote: %w", err)
	}
	jar := filepath.Join(dir, "target", "rebalsim-fidelity-0.jar")
	return &Java{Classpath: jar + string(os.PathListSeparator) + strings.TrimSpace(string(cp))}, nil
}

// command returns `java` running class main with modest memory: the
// machine runs a broker and a JVM per member side by side.
func (j *Java) command(heap, main string, args ...string) *exec.Cmd {
	all := append([]string{"-Xms32m", "-Xmx" + heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Xshare:auto", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", j.Classpath, main}, args...)
	return exec.Command("java", all...)
}
