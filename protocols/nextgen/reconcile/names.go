package reconcile

import "fmt"

// String returns the state's name as Kafka's MemberState spells it.
func (s State) String() string {
	switch s {
	case Stable:
		return "STABLE"
	case UnrevokedPartitions:
		return "UNREVOKED_PARTITIONS"
	case UnreleasedPartitions:
		return "UNRELEASED_PARTITIONS"
	case Unknown:
		return "UNKNOWN"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// String names the Kafka behaviour: "4.0" or "trunk", as the vectors do.
func (v Version) String() string {
	if v == Trunk {
		return "trunk"
	}
	return "4.0"
}

// String renders the member compactly and deterministically, e.g.
// "UNREVOKED_PARTITIONS epoch=10 prev=10 assigned=t1[2 3] pending=t1[1]".
func (m Member) String() string {
	return fmt.Sprintf("%s epoch=%d prev=%d assigned=%s pending=%s", m.State, m.Epoch, m.PreviousEpoch, m.Assigned, m.PendingRevocation)
}
