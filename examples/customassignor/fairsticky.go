// Package customassignor is an example of plugging an assignor of one's own
// into rebalsim: FairSticky, a small client-side assignor that supports the
// COOPERATIVE protocol. It is written to be read, not to compete with
// Kafka's cooperative-sticky: it shows what an assignor receives, what it
// must return, and the one rule a cooperative assignor must keep — never
// hand a partition to a new owner in the same round in which another
// member still owns it.
//
// Plug it in with protocols.Models, and load scenarios for those models so
// that a file may name it (`assignors: [fair-sticky]`):
//
//	models := protocols.Models{ClientAssignors: []assignor.Assignor{customassignor.FairSticky("fair-sticky")}}
//	sc, err := scenarios.Loader{Models: models}.LoadFile("group.yaml")
//	res, err := rebalsim.Run(sc.Scenario, rebalsim.Options{Models: models})
//
// (testdata/fair-sticky-scale-out.yaml is such a file), or register it
// under a built-in's name ("cooperative-sticky") to run every scenario
// written for that assignor, the scenario library included, against it.
package customassignor

import (
	"slices"
	"sort"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic/assignor"
)

// FairSticky returns the assignor under the given protocol name.
func FairSticky(name string) assignor.Assignor { return fairSticky{name: name} }

type fairSticky struct{ name string }

func (a fairSticky) Name() string { return a.name }

func (fairSticky) Protocols() []kafka.RebalanceProtocol {
	return []kafka.RebalanceProtocol{kafka.Eager, kafka.Cooperative}
}

// Assign keeps every member's valid previous partitions up to its fair
// share, gives the rest to the members with the fewest, and withholds from
// this round any partition that changes owner, so that its old owner can
// revoke it first. Subscriptions may differ: a partition only ever goes to a
// member that subscribes to its topic, and shares are counted per member
// over the partitions it could hold.
func (a fairSticky) Assign(in assignor.Input) assignor.Result {
	members := slices.Clone(in.Members)
	sort.Slice(members, func(i, j int) bool { return members[i].MemberID < members[j].MemberID })
	exists := map[string]int32{}
	for _, t := range in.Topics {
		exists[t.Name] = t.Partitions
	}
	// Previous ownership: the claim with the highest generation wins; two
	// claims at the same generation cancel out (as in Kafka's sticky
	// assignors), so nobody keeps such a partition.
	type claim struct {
		member     string
		generation int32
		contested  bool
	}
	owner := map[kafka.TopicPartition]*claim{}
	for _, m := range members {
		for _, tp := range m.Owned.Partitions() {
			if tp.Partition >= exists[tp.Topic] || !slices.Contains(m.Topics, tp.Topic) {
				continue
			}
			c := owner[tp]
			switch {
			case c == nil || m.Generation > c.generation:
				owner[tp] = &claim{member: m.MemberID, generation: m.Generation}
			case m.Generation == c.generation:
				c.contested = true
			}
		}
	}
	// Every existing partition of a subscribed topic, in order.
	var all []kafka.TopicPartition
	for _, t := range in.Topics {
		for _, m := range members {
			if slices.Contains(m.Topics, t.Name) {
				for p := int32(0); p < t.Partitions; p++ {
					all = append(all, kafka.TopicPartition{Topic: t.Name, Partition: p})
				}
				break
			}
		}
	}
	// Fair share: partitions split evenly over members, the first members
	// (by how much they already own, then id) taking the remainder.
	held := map[string][]kafka.TopicPartition{}
	for _, tp := range all {
		if c := owner[tp]; c != nil && !c.contested {
			held[c.member] = append(held[c.member], tp)
		}
	}
	quota := map[string]int{}
	order := slices.Clone(members)
	sort.SliceStable(order, func(i, j int) bool { return len(held[order[i].MemberID]) > len(held[order[j].MemberID]) })
	for i, m := range order {
		quota[m.MemberID] = len(all) / max(len(members), 1)
		if i < len(all)%max(len(members), 1) {
			quota[m.MemberID]++
		}
	}
	result := map[string]kafka.Assignment{}
	count := map[string]int{}
	assigned := map[kafka.TopicPartition]bool{}
	for _, m := range members {
		result[m.MemberID] = kafka.Assignment{}
		for _, tp := range held[m.MemberID] {
			if count[m.MemberID] < quota[m.MemberID] {
				result[m.MemberID][tp.Topic] = append(result[m.MemberID][tp.Topic], tp.Partition)
				count[m.MemberID]++
				assigned[tp] = true
			}
		}
	}
	for _, tp := range all {
		if assigned[tp] {
			continue
		}
		// The least-loaded subscriber under its quota takes it, ties by id;
		// if all are at quota (unequal subscriptions), the least loaded.
		var best string
		for _, m := range members {
			if !slices.Contains(m.Topics, tp.Topic) {
				continue
			}
			if best == "" || less(count[m.MemberID]-quota[m.MemberID], count[best]-quota[best], m.MemberID, best) {
				best = m.MemberID
			}
		}
		if best == "" {
			continue
		}
		count[best]++
		// The cooperative rule: a partition that a different member still
		// owns (or that two members claim) is withheld this round; it is
		// assigned in the follow-up rebalance, once it has been revoked.
		if c := owner[tp]; c != nil && (c.contested || c.member != best) {
			continue
		}
		result[best][tp.Topic] = append(result[best][tp.Topic], tp.Partition)
	}
	for _, a := range result {
		a.Normalize()
	}
	return assignor.Result{Assignment: result}
}

func less(a, b int, idA, idB string) bool {
	if a != b {
		return a < b
	}
	return idA < idB
}
