package sim

import (
	"fmt"
	"math/rand/v2"

	"github.com/rebalsim/rebalsim/kafka"
)

// MemberIDs hands out the random part of the member ids a group
// coordinator mints. Kafka's ids are random (java.util.UUID or Kafka's Uuid,
// see kafka.Uuid), and their order is not idle: the classic coordinator's
// members and the consumer group's target assignment iterate Java hash
// maps keyed by them, and the range assignors sort by them. So each
// process draws its ids from a stream of its own, named after the member
// and the process's number among the member's processes ("member-id/c3/2",
// c3's second process): the same process gets the same ids under every
// protocol and whatever else happens first, and a restarted process (a new
// consumer) gets new ones. A run compared with a real one is given the real
// ids instead (RunOptions.MemberIDs), by the same numbering.
type MemberIDs struct {
	streams streams
	given   map[string][][]string
	// life numbers the processes of a member from 1, by endpoint.
	life  map[incarnation]int
	drawn map[incarnation]*rand.Rand
	used  map[incarnation]int
}

type incarnation struct {
	process string
	n       int
}

func newMemberIDs(s streams, given map[string][][]string) *MemberIDs {
	return &MemberIDs{streams: s, given: given, life: map[incarnation]int{}, drawn: map[incarnation]*rand.Rand{}, used: map[incarnation]int{}}
}

// started records that the process at e is its member's n-th.
func (ids *MemberIDs) started(e Endpoint, n int) {
	ids.life[incarnation{e.Process, e.Incarnation}] = n
}

// Mint returns the next member id for a request from `from`: the next of
// the ids the run was given for that incarnation, or else format applied
// to the next Uuid of the incarnation's stream.
func (ids *MemberIDs) Mint(from Endpoint, format func(kafka.Uuid) string) string {
	k := incarnation{from.Process, ids.life[incarnation{from.Process, from.Incarnation}]}
	if k.n == 0 {
		// An endpoint no process started (a test driving the
		// coordinator by hand): number it by its incarnation.
		k.n = max(from.Incarnation, 1)
	}
	i := ids.used[k]
	ids.used[k]++
	if byInc := ids.given[k.process]; k.n <= len(byInc) && i < len(byInc[k.n-1]) {
		return byInc[k.n-1][i]
	}
	r := ids.drawn[k]
	if r == nil {
		r = ids.streams.Stream(fmt.Sprintf("member-id/%s/%d", k.process, k.n))
		ids.drawn[k] = r
	}
	return format(kafka.RandomUuid(r))
}
