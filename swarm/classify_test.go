package swarm

import "testing"

// TestClassify: the hazards match only their own signature, a pending
// member shares the hazard that refused it, and anything else is a defect.
func TestClassify(t *testing.T) {
	mixed := &Spec{Description: "mixed classic and consumer-protocol group"}
	plain := &Spec{}
	unreleased := Failure{Class: Liveness, Key: "join_failure:UNRELEASED_INSTANCE_ID", Members: []string{"c2"}}
	notFound := Failure{Class: Liveness, Key: "join_failure:GROUP_ID_NOT_FOUND", Members: []string{"c3"}}
	pending := func(members ...string) Failure {
		return Failure{Class: Liveness, Key: "not_converged:members", Members: members}
	}
	for _, tc := range []struct {
		name   string
		spec   *Spec
		f      Failure
		run    []Failure
		hazard bool
	}{
		{"unreleased instance id", plain, unreleased, nil, true},
		// GROUP_ID_NOT_FOUND is a hazard only where the group migrates.
		{"group id not found in a migration", mixed, notFound, nil, true},
		{"group id not found without one", plain, notFound, nil, false},
		{"pending because refused", plain, pending("c2"), []Failure{unreleased}, true},
		{"pending, one of them not refused", plain, pending("c2", "c4"), []Failure{unreleased}, false},
		{"pending with no refusal", plain, pending("c2"), nil, false},
		{"double ownership", mixed, Failure{Class: Safety, Key: "double_ownership"}, nil, false},
	} {
		if got := Classify(tc.spec, tc.f, tc.run) != ""; got != tc.hazard {
			t.Errorf("%s: hazard %v, want %v", tc.name, got, tc.hazard)
		}
	}
}
