package assignor

import (
	"slices"

	"github.com/rebalsim/rebalsim/kafka"
)

// Sticky returns the sticky assignor (StickyAssignor, "sticky", reference
// §3.3). It runs AbstractStickyAssignor: balance first, then keep as many
// previously owned partitions as balance allows. It supports only the EAGER
// protocol: members revoke everything before they rejoin, and the leader
// learns what they held from their subscription user data, which rebalsim
// models as Subscription.Owned and Subscription.Generation.
func Sticky() Assignor { return stickyAssignor{cooperative: false} }

// CooperativeSticky returns the cooperative sticky assignor
// (CooperativeStickyAssignor, "cooperative-sticky", reference §3.3 and
// §2.8). It computes the same assignment as Sticky and then, because under
// the COOPERATIVE protocol members keep processing what they own during the
// rebalance, withholds every partition that would change hands from its new
// owner (adjustAssignment). The old owner sees the partition missing from
// its assignment, revokes it and rejoins; the follow-up rebalance finds it
// unowned and hands it over. It supports COOPERATIVE and EAGER.
func CooperativeSticky() Assignor { return stickyAssignor{cooperative: true} }

type stickyAssignor struct{ cooperative bool }

func (a stickyAssignor) Name() string {
	if a.cooperative {
		return "cooperative-sticky"
	}
	return "sticky"
}

// Protocols mirrors supportedProtocols(): CooperativeStickyAssignor lists
// COOPERATIVE before EAGER.
func (a stickyAssignor) Protocols() []kafka.RebalanceProtocol {
	if a.cooperative {
		return []kafka.RebalanceProtocol{kafka.Cooperative, kafka.Eager}
	}
	return []kafka.RebalanceProtocol{kafka.Eager}
}

// Assign follows AbstractStickyAssignor.assignPartitions: resolve who
// validly owned what, then run the constrained builder when every member
// has the same subscription and the general builder otherwise.
func (a stickyAssignor) Assign(in Input) Result {
	u := newUniverse(in)
	if len(in.Members) == 0 {
		return Result{Assignment: map[string]kafka.Assignment{}, Transferring: map[kafka.TopicPartition]string{}}
	}
	order := kafkaIterationOrder(in.Members)
	rank := idRanks(in.Members)
	if u.equalSubscriptions {
		if res, ok := a.assignDisjoint(u, order, rank); ok {
			return res
		}
		return a.assignConstrained(u, order, rank)
	}
	// The general builder leaves partitionsTransferringOwnership null, and
	// so does rebalsim; CooperativeStickyAssignor then works out the
	// transfers itself by comparing what members own with what they get.
	owner := buildGeneral(u, resolveOwnership(u), order, rank)
	if a.cooperative {
		withholdClaimed(u, owner)
	}
	return Result{Assignment: u.result(owner)}
}

// assignConstrained is the constrained path for any input: ownership
// resolved into an owner array, buildConstrained, then the Result.
func (a stickyAssignor) assignConstrained(u *universe, order, rank []int32) Result {
	prev := resolveOwnership(u)
	owner, d := buildConstrained(u, prev, order, rank)
	if a.cooperative {
		for _, mv := range d.moves {
			owner[mv.partition] = -1
			d.size[mv.member]--
		}
	}
	// A member that released nothing and was dealt nothing gets what it
	// owned; when its Owned says exactly that, it is handed back.
	same := d.touched
	for m := range same {
		same[m] = !d.touched[m] && prev.exact[m]
	}
	return Result{Assignment: u.resultSized(owner, d.size, same), Transferring: u.transferring(d.moves)}
}

// ownership is the leader's view of the previous assignment after conflict
// resolution (AbstractStickyAssignor.allSubscriptionsEqual fills the same
// consumerToOwnedPartitions and partitionsWithMultiplePreviousOwners).
type ownership struct {
	// owner is each partition's valid previous owner, or -1.
	owner []int32
	// contested marks partitions claimed by two or more members of the
	// highest claiming generation: nobody keeps them, and whoever gets them
	// counts as taking them over from their owners. It is nil when no
	// partition is contested, as in a group that behaves.
	contested []bool
	// count is how many partitions each member validly owns.
	count []int32
	// exact marks the members whose Owned is exactly their validly owned
	// partitions in the form a Result gives them (no empty, unsorted,
	// repeated or foreign entries, nothing lost to another claimant), so
	// that a member left as it was can be handed its Owned back.
	exact []bool
	// start and list hold each member's validly owned partitions, ascending:
	// member m's are list[start[m]:start[m+1]]. They are built on the first
	// call of owned, as the constrained path mostly does without them.
	start []int32
	list  []int32
	// generation is each member's generation, -1 when it carries none.
	generation    []int32
	maxGeneration int32
}

// isContested reports whether partition gp is contested.
func (o *ownership) isContested(gp int32) bool { return o.contested != nil && o.contested[gp] }

// owned lists member m's validly owned partitions, ascending.
func (o *ownership) owned(m int32) []int32 {
	if o.start == nil {
		o.listOwned(func(int32) bool { return true })
	}
	return o.list[o.start[m]:o.start[m+1]]
}

// listOwned fills start and list for the members that want says, in one
// walk of the owner array; the others' lists are left empty.
func (o *ownership) listOwned(want func(m int32) bool) {
	o.start = make([]int32, len(o.count)+1)
	for m, n := range o.count {
		o.start[m+1] = o.start[m]
		if want(int32(m)) {
			o.start[m+1] += n
		}
	}
	o.list = make([]int32, o.start[len(o.count)])
	if len(o.list) == 0 {
		return
	}
	next := slices.Clone(o.start[:len(o.count)])
	for gp, m := range o.owner {
		if m >= 0 && next[m] < o.start[m+1] {
			o.list[next[m]] = int32(gp)
			next[m]++
		}
	}
}

// resolveOwnership decides who validly owned each partition. Kafka's rules:
// a partition claimed by one member stays its own; between claimants of
// different generations the highest generation wins, so a member that
// missed a rebalance cannot take back what was moved away from it; two
// claimants in the same generation mean the input is inconsistent and
// neither keeps the partition.
//
// Kafka applies these rules pairwise while it walks its subscription
// HashMap, so with three or more claimants its answer can depend on that
// order (a tie at generation 1 followed by a claim at generation 2 leaves
// the partition contested in the constrained path). rebalsim takes the
// order-independent reading: the highest generation wins if exactly one
// member claims it there, and the partition is contested otherwise.
//
// While the claims are read, a contested partition's owner holds -2-m for
// one of its claimants m, so that the generation it was contested in is
// that member's: the claims need no array of their own beside the owners.
func resolveOwnership(u *universe) *ownership {
	n := u.partitions()
	o := &ownership{
		owner:         u.noOwner(),
		count:         make([]int32, len(u.members)),
		exact:         make([]bool, len(u.members)),
		generation:    make([]int32, len(u.members)),
		maxGeneration: -1,
	}
	// claims counts each member's entries in Owned, for exact.
	claims := make([]int32, len(u.members))
	for m := range u.members {
		g := int32(-1)
		if s := &u.members[m]; s.HasGeneration {
			g = s.Generation
		}
		o.generation[m] = g
		o.maxGeneration = max(o.maxGeneration, g)
	}
	contests := false
	for m := range u.members {
		g, m32 := o.generation[m], int32(m)
		canonical := u.members[m].Owned != nil
		// forEachOwned, written out: this loop visits every owned
		// partition of the group on every rebalance.
		for name, ps := range u.members[m].Owned {
			t := u.topicIndex(name)
			if t < 0 || len(ps) == 0 {
				canonical = false
				continue
			}
			first, count := u.offset[t], u.count(t)
			claims[m] += int32(len(ps))
			for i, p := range ps {
				if p < 0 || p >= count || (i > 0 && p <= ps[i-1]) {
					canonical = false
				}
				if p < 0 || p >= count {
					continue
				}
				gp := first + p
				cur := o.owner[gp]
				if cur == -1 {
					o.owner[gp] = m32
					o.count[m]++
					continue
				}
				if cur == m32 {
					continue
				}
				claimant := cur
				if cur < -1 {
					claimant = -2 - cur
				}
				switch claimGen := o.generation[claimant]; {
				case g > claimGen:
					if cur >= 0 {
						o.count[cur]--
					}
					o.owner[gp] = m32
					o.count[m]++
				case g == claimGen && cur >= 0:
					o.count[cur]--
					o.owner[gp] = -2 - cur
					contests = true
				}
			}
		}
		o.exact[m] = canonical
	}
	for m, n := range claims {
		// Every claim was a distinct valid partition; all of them are
		// still m's if none went to another claimant.
		o.exact[m] = o.exact[m] && o.count[m] == n
	}
	if contests {
		o.contested = make([]bool, n)
		for gp, m := range o.owner {
			if m < -1 {
				o.owner[gp], o.contested[gp] = -1, true
			}
		}
	}
	return o
}

// withholdClaimed is CooperativeStickyAssignor's adjustment for the general
// path (computePartitionsTransferringOwnership then adjustAssignment): a
// partition that some member reports owning and that goes to a member that
// does not report owning it is withheld this round, so that no partition is
// given out while another member may still be processing it.
func withholdClaimed(u *universe, owner []int32) {
	claimed := make([]bool, len(owner))
	keptByClaimant := make([]bool, len(owner))
	for m := range u.members {
		m32 := int32(m)
		u.forEachOwned(m, func(gp int32) {
			claimed[gp] = true
			if owner[gp] == m32 {
				keptByClaimant[gp] = true
			}
		})
	}
	for gp := range owner {
		if claimed[gp] && !keptByClaimant[gp] {
			owner[gp] = -1
		}
	}
}
