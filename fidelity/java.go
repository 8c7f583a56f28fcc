package fidelity

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rebalsim/rebalsim/sim"
)

// Releases maps each scenario kafka_version the real runner can run to
// the Apache Kafka release its broker and Java client come from (Maven
// resolves it: `mvn -Dkafka.version=...`). The broker settings and the
// Java programs are written against 4.3's API and configs, so other
// versions are refused rather than run on a broker they do not name.
var Releases = map[string]string{"4.3": "4.3.1"}

// Release is the Kafka release a real run of sc uses, or an error naming
// the scenario's kafka_version line when the suite has none for it.
func Release(sc *sim.Scenario) (string, error) {
	v := sc.KafkaVersion
	if v == "" {
		v = sim.DefaultKafkaVersion
	}
	if r, ok := Releases[v]; ok {
		return r, nil
	}
	src, _ := os.ReadFile(sc.Source)
	known := slices.Sorted(maps.Keys(Releases))
	return "", &SubsetError{Source: sc.Source, Line: keyLine(src, "kafka_version"), Key: "kafka_version",
		Why: fmt.Sprintf("%q has no real broker here (the real runner runs %s)", v, strings.Join(known, ", "))}
}

// Java is the built Java side: the classpath holding Kafka's broker and
// client and this suite's consumer and producer programs.
type Java struct {
	Classpath string
	// Release is the Kafka release on the classpath.
	Release string
}

// BuildJava builds fidelity/java with Maven (`mvn -q package`), which
// resolves Kafka's artifacts into Maven's local repository, and returns
// its classpath. dir is the fidelity/java directory, release the Kafka
// release to build against (a value of Releases).
func BuildJava(dir, release string) (*Java, error) {
	cmd := exec.Command("mvn", "-B", "-q", "package", "-Dkafka.version="+release)
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
	return &Java{Classpath: jar + string(os.PathListSeparator) + strings.TrimSpace(string(cp)), Release: release}, nil
}

// rebalanceLogging makes a JVM log, with the wall-clock instant to the
// millisecond, what the Kafka classes of the given packages say at INFO:
// for the members the client's JoinGroup, SyncGroup and reconciliation
// steps (AbstractCoordinator, ConsumerCoordinator,
// ConsumerMembershipManager), for the broker the group coordinator's
// (GroupMetadataManager). Each process's standard error is kept beside
// its recording, so two rebalance sequences can be compared step by step.
func rebalanceLogging(packages ...string) []string {
	flags := []string{"-Dorg.slf4j.simpleLogger.showDateTime=true",
		"-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSSXXX"}
	for _, p := range packages {
		flags = append(flags, "-Dorg.slf4j.simpleLogger.log."+p+"=info")
	}
	return flags
}

// command returns `java` running class main with modest memory: the
// machine runs a broker and a JVM per member side by side.
func (j *Java) command(heap, main string, args ...string) *exec.Cmd {
	all := append([]string{"-Xms32m", "-Xmx" + heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Xshare:auto", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", j.Classpath, main}, args...)
	return exec.Command("java", all...)
}
