package assignor_test

import (
	"testing"

	"github.com/rebalsim/rebalsim/conformance"
)

// TestKafkaVectors runs the client-assignor vectors extracted from Kafka's
// RangeAssignorTest, RoundRobinAssignorTest, AbstractStickyAssignorTest and
// CooperativeStickyAssignorTest through the conformance runner, so that
// these assignors' own tests cover them. conformance_test.go runs the
// whole file, server and reconciliation vectors included.
func TestKafkaVectors(t *testing.T) {
	f, err := conformance.Load("../../../conformance/testdata/kafka-vectors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, o := range f.Run(conformance.Options{}) {
		if o.Kind != "client_assignor" {
			continue
		}
		n++
		if o.Status != conformance.Pass {
			t.Errorf("%s", o)
		}
	}
	if n == 0 {
		t.Fatal("no client_assignor vectors in the file")
	}
}
