package swarm

import "strings"

// A hazard is a failure that real Kafka produces too, by design: the
// swarm lists it, with the reason, and does not count it as a defect.
// Each is matched narrowly, on the finding and on what the scenario did,
// so that a defect that merely looks alike is still a defect.
type hazard struct {
	name  string
	match func(s *Spec, f Failure) bool
}

func hazards() []hazard {
	return []hazard{
		{
			// A static consumer-protocol member that comes back before its
			// previous incarnation left (epoch -2) or expired is refused:
			// GroupMetadataManager.throwIfInstanceIdIsUnreleased, and the
			// Java client treats the error as fatal
			// (ConsumerHeartbeatRequestManager.handleSpecificError).
			name: "KIP-848 static member restarted before its instance id was released (UNRELEASED_INSTANCE_ID is fatal)",
			match: func(s *Spec, f Failure) bool {
				return f.Key == "join_failure:UNRELEASED_INSTANCE_ID"
			},
		},
		{
			// A consumer-protocol member expired while it was away, in a
			// group that then converted back to classic (the online
			// downgrade), heartbeats with its old epoch into a classic
			// group: GroupMetadataManager.getOrMaybeCreateConsumerGroup
			// answers GROUP_ID_NOT_FOUND ("is not a consumer group"), an
			// error the Java client treats as fatal
			// (AbstractHeartbeatRequestManager.onErrorResponse, default).
			name: "KIP-848 member expired in a group converted back to classic (GROUP_ID_NOT_FOUND is fatal)",
			match: func(s *Spec, f Failure) bool {
				return f.Key == "join_failure:GROUP_ID_NOT_FOUND" && migrates(s)
			},
		},
	}
}

// migrates reports whether the run had classic and consumer-protocol
// members in one group.
func migrates(s *Spec) bool {
	if strings.Contains(s.Description, "consumer-protocol") {
		return true
	}
	for _, e := range s.Events {
		if e.Set.GroupProtocol != "" {
			return true
		}
	}
	return false
}

// Classify names the documented Kafka hazard a failure is an instance of,
// or "" when it is a defect. run holds every failure of the same run: a
// group that is not stable only because members a hazard refused are
// still pending shares that hazard.
func Classify(s *Spec, f Failure, run []Failure) string {
	for _, h := range hazards() {
		if h.match(s, f) {
			return h.name
		}
	}
	if f.Key != "not_converged:members" {
		return ""
	}
	refused := map[string]string{}
	for _, g := range run {
		for _, h := range hazards() {
			if g.Class == Liveness && strings.HasPrefix(g.Key, "join_failure:") && h.match(s, g) {
				for _, m := range g.Members {
					refused[m] = h.name
				}
			}
		}
	}
	name := ""
	for _, m := range f.Members {
		if refused[m] == "" || (name != "" && refused[m] != name) {
			return ""
		}
		name = refused[m]
	}
	return name
}
