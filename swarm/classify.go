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

// KnownDefect names the open defect of the models that a failure has the
// signature of, "" if none. Unlike a hazard, a known defect is a bug: it
// is shrunk and written to the corpus like any other, and
// `rebalsim swarm --strict` fails on it; without --strict it is listed
// but does not fail the run, so that CI catches new defects while these
// are being fixed. Remove an entry once its fix is in.
func KnownDefect(s *Spec, f Failure) string {
	classic := f.Protocol == "eager" || f.Protocol == "cooperative"
	switch {
	case classic && f.Class == Liveness && f.Key == "not_converged:members":
		// A classic member that lost its SyncGroup response or was
		// fenced (UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS after a
		// pause or partition) is left out of the group for good.
		return "classic member never rejoins after being fenced"
	case classic && f.Class == Safety && static(s):
		// A static member that comes back with its group.instance.id
		// takes over its old member id's assignment while another
		// member was handed the same partitions.
		return "classic static member double ownership"
	case classic && f.Class == Safety && migrates(s):
		// Found by this swarm (seeds 17, 33, 38, 146 and more of 1-300):
		// classic members inside a consumer group, or a group converting
		// between the two, hand a partition to a second member before
		// the first has revoked it.
		return "double ownership during the KIP-848 online migration"
	case classic && f.Key == "not_converged:partitions" && static(s) && grows(s):
		// Found by this swarm (seed 198): a static classic member that
		// left while its topic grew rejoins with its old assignment and
		// never assigns the new partitions.
		return "classic static member misses partitions added while it was away"
	}
	return ""
}

// static reports whether any member of s has a group.instance.id.
func static(s *Spec) bool {
	if s.Defaults.Static {
		return true
	}
	for _, m := range s.Members {
		if m.Settings.Static {
			return true
		}
	}
	return false
}

// grows reports whether a topic of s gains partitions.
func grows(s *Spec) bool {
	for _, e := range s.Events {
		if e.Kind == "add_partitions" {
			return true
		}
	}
	return false
}
