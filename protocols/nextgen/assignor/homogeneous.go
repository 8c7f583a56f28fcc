package assignor

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/rebalsim/rebalsim/internal/javaorder"
	"github.com/rebalsim/rebalsim/kafka"
)

// assignHomogeneous is UniformHomogeneousAssignmentBuilder: every member
// subscribes to the same topics, so balance is a pure count — P/M partitions
// each, with the first P%M members (in GroupSpec order) taking one more — and
// stickiness means each member keeps as much of its current target as its
// quota allows.
//
// The steps, each in Kafka's order:
//
//  1. The subscribed topics are the first member's (Kafka reads them from
//     the first member too; in a homogeneous group they are everyone's).
//  2. The unassigned list starts with every partition of a subscribed topic
//     that no member's current target holds, topic by topic in caller order,
//     partitions ascending.
//  3. Members are visited in GroupSpec order. Each gets its quota, keeps its
//     current partitions of subscribed topics (topics in caller order,
//     partitions in the order of Kafka's HashSet, see javaSetOrder:
//     ascending below 16 and more) while the quota lasts and appends the rest to
//     the unassigned list; partitions of other topics are dropped. A member
//     left under quota is queued as unfilled with its remaining quota.
//  4. The unassigned list is dealt in order: each unfilled member, in the
//     order queued, takes the next partitions until its quota is met.
//
// Under 4.0 (extraToAnyMember false) which members get the extra partition
// depends only on iteration order, not on who held more before, so a member
// can lose a partition to make room for another's +1: this is Kafka 4.0's
// behaviour and the vectors assert it. Kafka 4.1 (KAFKA-18688) changed
// steps 3 and 4 so that a balanced assignment stays as it is
// (UniformHomogeneousAssignmentBuilder.maybeRevokePartitions and
// assignRemainingPartitions):
//
//   - while extras are left, a member may keep up to the minimum plus one;
//     if it keeps that many it claims one of the extras, otherwise it keeps
//     at most the minimum and claims none;
//   - a member is queued as unfilled if it is under the minimum, or if it
//     has not claimed an extra while extras are still left then;
//   - before dealing, the extras still unclaimed go to the last unfilled
//     members, one each, walking the queue backwards.
func assignHomogeneous(members []Member, ti *topicIndex, extraToAnyMember bool) (*GroupAssignment, error) {
	subscribed := make([]bool, len(ti.names))
	anySubscribed := false
	guess := int32(0)
	for _, name := range members[0].Topics {
		if t := ti.lookupNear(name, guess); t >= 0 {
			subscribed[t] = true
			anySubscribed = true
			guess = t + 1
		}
	}
	if !anySubscribed {
		return newGroupAssignment(ti, len(members)), nil
	}

	b := homogeneousBuilder{members: members, ti: ti, subscribed: subscribed, extraToAnyMember: extraToAnyMember}
	b.keepWithinQuota()
	b.listUnassigned()
	b.deal()
	return b.assignments(), nil
}

// claimedSet marks the partitions (by global index) that a member kept or
// released in the keeping pass: one bit each, so that the marks of a
// 100,000-partition group fit in 12.5 KB, not the 400 KB of one owner
// number each, and stay in cache.
type claimedSet []uint64

func newClaimedSet(n int) claimedSet { return make(claimedSet, (n+63)/64) }

func (s claimedSet) has(g int) bool { return s[g>>6]&(1<<(g&63)) != 0 }

func (s claimedSet) add(g int) { s[g>>6] |= 1 << (g & 63) }

// claimRange adds [lo, hi) to s if none of it is in s yet, and reports
// whether it did; otherwise s is unchanged.
func (s claimedSet) claimRange(lo, hi int) bool {
	if w := lo >> 6; (hi-1)>>6 == w {
		// Within one word, as most members' runs are.
		mask := ^uint64(0) >> uint(64-(hi-lo)) << uint(lo&63)
		if s[w]&mask != 0 {
			return false
		}
		s[w] |= mask
		return true
	}
	for w := lo >> 6; w <= (hi-1)>>6; w++ {
		if s[w]&rangeMask(w, lo, hi) != 0 {
			return false
		}
	}
	for w := lo >> 6; w <= (hi-1)>>6; w++ {
		s[w] |= rangeMask(w, lo, hi)
	}
	return true
}

// rangeMask is the bits of word w that [lo, hi) covers (lo < hi).
func rangeMask(w, lo, hi int) uint64 {
	mask := ^uint64(0)
	if start := w << 6; lo > start {
		mask <<= uint(lo - start)
	}
	if end := (w + 1) << 6; hi < end {
		mask &= ^uint64(0) >> uint(end-hi)
	}
	return mask
}

// appendUnclaimed appends the global indices in [lo, hi) that are not in
// s, ascending, a word of 64 at a time.
func (s claimedSet) appendUnclaimed(buf []int32, lo, hi int) []int32 {
	for g := lo; g < hi; {
		free := ^s[g>>6] >> (g & 63)
		if free == 0 {
			g = (g | 63) + 1
			continue
		}
		g += bits.TrailingZeros64(free)
		if g >= hi {
			break
		}
		buf = append(buf, int32(g))
		g++
	}
	return buf
}

// homogeneousBuilder holds the flat state of one assignHomogeneous call.
//
// Kafka's steps 2 and 3 (list the partitions nobody holds, then let each
// member keep what fits) are done in the other order, in one pass over the
// members that reads each member's target map once: a partition that no
// member keeps or releases in that pass is one nobody held, so the list of
// those, ascending, followed by the released ones in the order released is
// Kafka's unassigned list. A member that keeps exactly its current target
// and is at its quota gets its map back there and then, without a second
// look, as Kafka's builder hands back the member's immutable assignment
// when maybeRevokePartitions leaves it alone
// (UniformHomogeneousAssignmentBuilder.maybeRevokePartitions). So an
// incremental assignment costs one map lookup per member, a pass over
// the partitions' marks and work for the members that change only.
type homogeneousBuilder struct {
	members    []Member
	ti         *topicIndex
	subscribed []bool
	// extraToAnyMember is Kafka 4.1's rule for the extra partitions
	// (KAFKA-18688), see assignHomogeneous.
	extraToAnyMember bool
	total            int
	// kept counts the partitions members kept.
	kept int

	// claimed holds every partition a member kept or released.
	claimed claimedSet
	// releasedList is what members over their quota gave up, in order.
	releasedList []int32
	// keptList holds what each changing member kept, member after member,
	// in the order kept (see changingMember.keptFrom).
	keptList   []int32
	unassigned []int32

	out *GroupAssignment
	// changing lists the members whose target is not settled by the
	// keeping pass, in GroupSpec order, with their share of the unassigned
	// list once dealt.
	changing []changingMember
}

type changingMember struct {
	member int32
	// unfilled: the member is in Kafka's unfilled-members queue, which
	// under 4.1 can also hold a member at its minimum waiting for one of
	// the extras nobody kept; the other changing members take nothing.
	unfilled bool
	// remaining is the quota left after keeping; from and to delimit the
	// member's share of the unassigned list after deal.
	remaining, from, to int32
	// keptList[keptFrom:keptFrom+kept] is what the member kept of its
	// current target, unless keptWhole.
	keptFrom, kept int32
	// keptWhole: the member kept every partition of its current target,
	// none out of place, and they are not in keptList (see
	// keptAndDealt).
	keptWhole bool
	// changed: the member gave up or dropped some of its current target,
	// or its target had something out of place (see keepWithinQuota).
	changed bool
	// merge: the member's target is what it kept and was dealt, sorted,
	// not just its share of the unassigned list (see assignments).
	merge bool
}

// keepWithinQuota visits the members in GroupSpec order: each gets its
// quota, keeps its current partitions of subscribed topics (topics in
// caller order, partitions in Kafka's HashSet order) while the quota lasts
// and releases the rest; under 4.1's rule it also decides who claims an
// extra partition and who waits in the unfilled queue for one.
func (b *homogeneousBuilder) keepWithinQuota() {
	for t := range b.ti.names {
		if b.subscribed[t] {
			b.total += int(b.ti.counts[t])
		}
	}
	numMembers := len(b.members)
	minQuota := b.total / numMembers
	extra := b.total % numMembers
	b.claimed = newClaimedSet(b.ti.total())
	b.out = newGroupAssignment(b.ti, numMembers)
	// Every member without a target changes: when the first has none,
	// this is likely a full assignment, where that is all of them, whom
	// appending one by one would copy over and over.
	if b.members[0].Current == nil {
		b.changing = make([]changingMember, 0, numMembers)
	}
	var heldBuf []currentTopic
	var orderBuf []int32
	guess := int32(0)
	for m := range b.members {
		quota := minQuota
		// claimsExtra is Kafka's quotaHasExtraPartition: under 4.1 the
		// extra is only claimed once the member keeps minQuota+1.
		claimsExtra := false
		if extra > 0 {
			quota++
			if b.extraToAnyMember {
				claimsExtra = true
			} else {
				extra--
			}
		}
		current := b.members[m].Current
		// changed: the new target is not the current one, or might not be
		// (then assignments compares them).
		changed := current == nil
		// held: the member's current topics that the group subscribes
		// to, ascending. Most members hold one or two topics next to the
		// previous member's, found by lookup; the others' maps are walked.
		var near [2]currentTopic
		held := near[:0]
		if n := b.heldNear(current, guess, &near); n >= 0 {
			held = near[:n]
			if n > 0 {
				guess = near[n-1].topic
			}
		} else {
			heldBuf = heldBuf[:0]
			for name, ps := range current {
				t := b.ti.lookupNear(name, guess)
				if t < 0 || !b.subscribed[t] {
					// A topic that does not exist cannot be assigned; the
					// partitions of one the group no longer subscribes to are
					// dropped, not released: nobody may receive them.
					if len(ps) > 0 {
						changed = true
					}
					continue
				}
				guess = t
				heldBuf = append(heldBuf, currentTopic{t, ps})
			}
			for i := 1; i < len(heldBuf); i++ {
				for j := i; j > 0 && heldBuf[j].topic < heldBuf[j-1].topic; j-- {
					heldBuf[j], heldBuf[j-1] = heldBuf[j-1], heldBuf[j]
				}
			}
			held = heldBuf
		}
		keptFrom := len(b.keptList)
		// lazy: the member's partitions fit its quota, as nearly every
		// member's do in a settled group, so unless one is out of place
		// it keeps them all, and what it kept need not be listed in
		// keptList; held[:unlisted] were kept so. A member at its quota
		// then stays as it is; one under it waits for the deal, which
		// under Kafka 4.1's rule, after a member leaves, gives most such
		// members nothing (see changingMember.keptWhole).
		size := 0
		for _, c := range held {
			size += len(c.parts)
		}
		lazy, unlisted := size <= quota && !changed, 0
		for j, c := range held {
			base, n := b.ti.offset[c.topic], b.ti.counts[c.topic]
			ps := c.parts
			if len(ps) <= quota && b.keepAll(ps, base, n, !lazy) {
				quota -= len(ps)
				if lazy {
					unlisted = j + 1
				}
				continue
			}
			if lazy {
				b.listKept(held[:unlisted])
				lazy, unlisted = false, 0
			}
			if len(ps) > quota {
				if b.giveUpFew(ps, base, n, quota) {
					quota = 0
					changed = true
					continue
				}
				// Some are given up: which, Kafka's HashSet order decides.
				ps = javaSetOrder(ps, &orderBuf)
			}
			prev := int32(-1)
			for _, p := range ps {
				if p <= prev {
					// Out of order or listed twice: the new list, sorted,
					// cannot be this one.
					changed = true
				}
				prev = p
				if p < 0 || p >= n {
					// Kafka never shrinks a topic; a partition number
					// beyond the metadata cannot be assigned.
					changed = true
					continue
				}
				g := base + int(p)
				if b.claimed.has(g) {
					// Already kept or released by an earlier member (an
					// inconsistent current target) or listed twice: the
					// first claim wins so that every partition has one
					// owner.
					changed = true
					continue
				}
				b.claimed.add(g)
				if quota > 0 {
					quota--
					b.keptList = append(b.keptList, int32(g))
				} else {
					b.releasedList = append(b.releasedList, int32(g))
					changed = true
				}
			}
		}
		kept := len(b.keptList) - keptFrom
		for _, c := range held[:unlisted] {
			kept += len(c.parts)
		}
		b.kept += kept
		unfilled := quota > 0
		if b.extraToAnyMember {
			if quota > 0 && claimsExtra {
				// Short of minQuota+1: give the extra up for another member.
				quota--
				claimsExtra = false
			}
			if quota == 0 && claimsExtra {
				extra--
			}
			unfilled = quota > 0 || (extra > 0 && !claimsExtra)
		}
		// The quotas sum to the partition count, so a member left under
		// its quota receives exactly what it lacks in deal.
		if unfilled || changed {
			// A member that kept all it holds unlisted has nothing out
			// of place: it is here to wait for the deal, and what it
			// kept is listed only if the deal gives it something.
			keptWhole := lazy && unlisted == len(held)
			if !keptWhole {
				b.listKept(held[:unlisted])
			}
			b.changing = append(b.changing, changingMember{member: int32(m), unfilled: unfilled, changed: changed, keptWhole: keptWhole, remaining: int32(quota), keptFrom: int32(keptFrom), kept: int32(kept)})
			continue
		}
		// Settled: what it kept is its current target, no list needed.
		b.keptList = b.keptList[:keptFrom]
		b.out.keep(m)
	}
	if b.extraToAnyMember {
		// The extras nobody kept go to the last unfilled members.
		for i := len(b.changing) - 1; i >= 0 && extra > 0; i-- {
			if b.changing[i].unfilled {
				b.changing[i].remaining++
				extra--
			}
		}
	}
}

// keepAll keeps every partition of ps (of the topic whose partition 0 is
// global index base, with n partitions), as the loop in keepWithinQuota
// would when they all fit the member's quota, ascend, exist and are
// nobody's yet, which is every member's case but for the few a change
// touches; then it reports true, and lists them in keptList if list is
// set. Otherwise it reports false and leaves everything as it was, for
// that loop to sort out.
func (b *homogeneousBuilder) keepAll(ps []int32, base int, n int32, list bool) bool {
	if len(ps) == 0 {
		return true
	}
	from := len(b.keptList)
	if first, last := ps[0], ps[len(ps)-1]; first >= 0 && last < n && int(last-first) == len(ps)-1 && isRun(ps) {
		// One run of partitions, as the deal hands them out: claimed a
		// word at a time.
		lo := base + int(first)
		if !b.claimed.claimRange(lo, lo+len(ps)) {
			return false
		}
		if list {
			for g := lo; g < lo+len(ps); g++ {
				b.keptList = append(b.keptList, int32(g))
			}
		}
		return true
	}
	prev := int32(-1)
	for i, p := range ps {
		// p > prev ≥ -1 and p < n: p is a partition of the topic.
		g := base + int(p)
		if p <= prev || p >= n || b.claimed.has(g) {
			for _, q := range ps[:i] {
				g := base + int(q)
				b.claimed[g>>6] &^= 1 << (g & 63)
			}
			return false
		}
		b.claimed.add(g)
		prev = p
	}
	if list {
		b.keptList = append(b.keptList, ps...)
		for i := from; i < len(b.keptList); i++ {
			b.keptList[i] += int32(base)
		}
	}
	return true
}

// maxGiveUpFew is the most partitions giveUpFew picks out by scanning.
const maxGiveUpFew = 8

// giveUpFew does what the loop in keepWithinQuota does for a member
// keeping quota of ps and giving up the rest, when the rest are a few
// (at most maxGiveUpFew) and every partition of ps ascends, exists and is
// nobody's yet, as when a member joins a balanced group and each member
// over the new quota gives up one: the partitions given up are the last
// ones in Kafka's HashSet order (see javaSetOrder), found by a scan for
// the largest (bucket, position) keys instead of ordering the whole set.
// It claims ps, lists the kept ones (ascending) in keptList and the given
// up ones (in set order) in releasedList, and reports true; otherwise it
// reports false and changes nothing.
func (b *homogeneousBuilder) giveUpFew(ps []int32, base int, n int32, quota int) bool {
	k := len(ps) - quota
	if k <= 0 || k > maxGiveUpFew {
		return false
	}
	for i, p := range ps {
		if p < 0 || p >= n || (i > 0 && p <= ps[i-1]) || b.claimed.has(base+int(p)) {
			return false
		}
	}
	capacity := javaSetCapacity(len(ps))
	// last holds the k largest keys seen, ascending.
	var buf [maxGiveUpFew]uint64
	last := buf[:0]
	for i, p := range ps {
		key := uint64(javaorder.HashMapBucket(uint32(p), capacity))<<32 | uint64(i)
		if len(last) == k {
			if key < last[0] {
				continue
			}
			last = append(last[:0], last[1:]...)
		}
		j := len(last)
		last = append(last, key)
		for ; j > 0 && last[j-1] > key; j-- {
			last[j] = last[j-1]
		}
		last[j] = key
	}
	for _, key := range last {
		b.releasedList = append(b.releasedList, int32(base)+ps[uint32(key)])
	}
	for i, p := range ps {
		g := base + int(p)
		b.claimed.add(g)
		if !slices.ContainsFunc(last, func(key uint64) bool { return int(uint32(key)) == i }) {
			b.keptList = append(b.keptList, int32(g))
		}
	}
	return true
}

// listKept lists in keptList the partitions of held, which the member
// kept whole by keepAll without listing them.
func (b *homogeneousBuilder) listKept(held []currentTopic) {
	for _, c := range held {
		base := int32(b.ti.offset[c.topic])
		for _, p := range c.parts {
			b.keptList = append(b.keptList, base+p)
		}
	}
}

// isRun tells whether ps counts up by one from ps[0].
func isRun(ps []int32) bool {
	first := ps[0]
	for i, p := range ps {
		if p != first+int32(i) {
			return false
		}
	}
	return true
}

type currentTopic struct {
	topic int32
	parts []int32
}

// heldNear finds the topics of current when there are at most two and
// they are topics guess and guess+1, both subscribed: it puts them in
// near, ascending, and returns how many, or -1 when current holds any
// other topic (then the caller walks the map). A lookup in a small map
// compares the name with each key, cheaper than starting an iteration,
// and in a group whose targets were dealt in topic order each member's
// topics follow the previous member's.
func (b *homogeneousBuilder) heldNear(current kafka.Assignment, guess int32, near *[2]currentTopic) int {
	want := len(current)
	if want > len(near) {
		return -1
	}
	n := 0
	for t := guess; t <= guess+1 && n < want; t++ {
		if t < 0 || int(t) >= len(b.ti.names) || !b.subscribed[t] {
			continue
		}
		if ps, ok := current[b.ti.names[t]]; ok {
			near[n] = currentTopic{t, ps}
			n++
		}
	}
	if n < want {
		return -1
	}
	return n
}

// listUnassigned makes Kafka's unassigned list: every partition of a
// subscribed topic that no current target held, topic by topic in caller
// order, partitions ascending, then the released ones.
func (b *homogeneousBuilder) listUnassigned() {
	if b.kept+len(b.releasedList) == b.total {
		// Every partition was kept or released: there is no partition
		// that nobody held to look for.
		b.unassigned = b.releasedList
		return
	}
	// Everything not kept is unassigned: in a full assignment that is
	// every partition, which appending would copy over and over.
	b.unassigned = make([]int32, 0, b.total-b.kept)
	for t := range b.ti.names {
		if !b.subscribed[t] {
			continue
		}
		b.unassigned = b.claimed.appendUnclaimed(b.unassigned, b.ti.offset[t], b.ti.offset[t+1])
	}
	b.unassigned = append(b.unassigned, b.releasedList...)
}

// deal hands the unassigned list out in order: each member left under its
// quota, in GroupSpec order, takes the next partitions until its quota is
// met (UniformHomogeneousAssignmentBuilder.assignRemainingPartitions).
func (b *homogeneousBuilder) deal() {
	next := int32(0)
	left := int32(len(b.unassigned))
	for i := range b.changing {
		c := &b.changing[i]
		take := min(c.remaining, left-next)
		c.from, c.to = next, next+take
		next += take
	}
	if next < left {
		// The quotas sum to the partition count, so this is a bug here,
		// not bad input.
		panic(fmt.Sprintf("assignor: homogeneous builder left %d of %d partitions unassigned", left-next, b.total))
	}
}

// assignments completes the new targets of the members that change: each
// gets its kept and received partitions, unless they turn out to be its
// current target after all (a partition it skipped as claimed twice can
// come back to it in the deal), in which case it keeps its map, as
// buildAssignments decides.
//
// A member that kept nothing and was dealt an ascending run (in a full
// assignment, every member) has that run of the unassigned list as its
// target, without a copy; the others' are merged after the unassigned
// list, which grows once to hold them, not into one array each.
func (b *homogeneousBuilder) assignments() *GroupAssignment {
	size := 0
	for i := range b.changing {
		c := &b.changing[i]
		if c.settled() {
			continue
		}
		if c.kept > 0 || !slices.IsSorted(b.unassigned[c.from:c.to]) {
			c.merge = true
			size += int(c.kept) + int(c.to-c.from)
		}
	}
	// The merged lists follow the unassigned list in one array.
	parts := b.unassigned
	if size > 0 {
		parts = slices.Grow(parts, size)
	}
	b.out.spans = make([]memberSpan, 0, len(b.changing))
	for _, c := range b.changing {
		m := int(c.member)
		if c.settled() {
			b.out.keep(m)
			continue
		}
		// parts[from:to]: the member's new partitions as global indices,
		// ascending.
		from, to := int(c.from), int(c.to)
		if c.merge {
			from = len(parts)
			parts = b.keptAndDealt(parts, c)
			to = len(parts)
		}
		if cur := b.members[m].Current; cur != nil && b.ti.sameAsGlobal(cur, parts[from:to]) {
			b.out.keep(m)
			continue
		}
		b.out.set(m, from, to)
	}
	b.out.parts = parts
	return b.out
}

// settled tells whether c keeps its current target after all: it kept
// every partition of it, nothing was out of place, and the deal gave it
// nothing. Under Kafka 4.1's rule every member at the minimum waits in the
// unfilled queue while extras are left, so after a member leaves nearly
// every member is such a one.
func (c *changingMember) settled() bool { return !c.changed && c.from == c.to }

// keptAndDealt appends to buf the global indices of what changing member
// c kept of its current target and what it was dealt, ascending. They are
// distinct: a partition is kept once at most (the first claim marks it),
// and what is dealt was nobody's or released by another member (one that
// releases has filled its quota and is dealt nothing).
func (b *homogeneousBuilder) keptAndDealt(buf []int32, c changingMember) []int32 {
	from := len(buf)
	if c.keptWhole {
		buf = b.appendCurrent(buf, b.members[c.member].Current)
	} else {
		buf = append(buf, b.keptList[c.keptFrom:c.keptFrom+c.kept]...)
	}
	buf = append(buf, b.unassigned[c.from:c.to]...)
	if mine := buf[from:]; !slices.IsSorted(mine) {
		slices.Sort(mine)
	}
	return buf
}

// appendCurrent appends to buf the global indices of every partition of
// current, a target that keepWithinQuota found all in place (subscribed,
// existing topics; partitions ascending, each held once), in map order.
func (b *homogeneousBuilder) appendCurrent(buf []int32, current kafka.Assignment) []int32 {
	for name, ps := range current {
		if len(ps) == 0 {
			continue
		}
		base := int32(b.ti.offset[b.ti.lookupNear(name, 0)])
		for _, p := range ps {
			buf = append(buf, base+p)
		}
	}
	return buf
}
