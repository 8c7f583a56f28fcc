package assignor

import "slices"

// memberBalancer hands out "the next least-loaded subscriber" and "the next
// most-loaded subscriber" of one topic in amortised constant time, as
// UniformHeterogeneousAssignmentBuilder.MemberAssignmentBalancer does.
//
// The subscribers are sorted by partition count (ties by member index). Two
// ranges grow from the ends of that list: the least-loaded range
// [0, leastEnd) and the most-loaded range [mostStart, mostEnd). Partitions are
// dealt round-robin inside the least-loaded range; once every member of the
// range has received one, the range's level rises by one and it swallows the
// neighbours that have reached that level. The most-loaded range shrinks
// leftwards the same way as partitions are taken away. The topic is balanced
// once the two levels differ by at most one.
//
// The sizes slice is shared with the builder and updated by it as partitions
// move, which is what lets a range recognise neighbours that have caught up.
type memberBalancer struct {
	sizes  []int32
	sorted []int32

	leastEnd   int // exclusive
	leastLevel int // partition count of the least-loaded range before this round
	nextLeast  int

	mostStart int // inclusive
	mostEnd   int // exclusive; members with nothing to give are swapped out past it
	mostLevel int
	nextMost  int
}

// initialize resets the balancer for the given subscribers (member indices
// in ascending order) and returns the difference between the most and the
// least loaded of them.
func (b *memberBalancer) initialize(members []int32) int {
	b.sorted = append(b.sorted[:0], members...)
	sizes := b.sizes
	slices.SortFunc(b.sorted, func(x, y int32) int {
		if sizes[x] != sizes[y] {
			return int(sizes[x]) - int(sizes[y])
		}
		return int(x) - int(y)
	})
	n := len(b.sorted)
	b.leastEnd = 0
	b.leastLevel = int(sizes[b.sorted[0]]) - 1
	b.nextLeast = 0

	b.mostStart = n
	b.mostEnd = n
	b.mostLevel = int(sizes[b.sorted[n-1]]) + 1
	b.nextMost = n - 1

	return int(sizes[b.sorted[n-1]]) - int(sizes[b.sorted[0]])
}

// nextLeastLoaded returns the member to which the next partition goes and
// advances as if it had received it.
func (b *memberBalancer) nextLeastLoaded() int32 {
	if b.nextLeast >= b.leastEnd {
		// Everyone in the range has had one more: raise the level and take
		// in the neighbours that are now level with the range.
		b.leastLevel++
		for b.leastEnd < len(b.sorted) && int(b.sizes[b.sorted[b.leastEnd]]) == b.leastLevel {
			b.leastEnd++
		}
		b.nextLeast = 0
	}
	m := b.sorted[b.nextLeast]
	b.nextLeast++
	return m
}

// nextMostLoaded returns the member from which the next partition is taken,
// or -1 when no member of the range has anything left to give, and advances
// as if it had given one up.
func (b *memberBalancer) nextMostLoaded() int32 {
	if b.nextMost < b.mostStart {
		if b.mostEnd <= b.mostStart && b.mostStart > 0 {
			// Every member of the range was excluded: restart the level
			// from the next member down so that the range expands below.
			b.mostLevel = int(b.sizes[b.sorted[b.mostStart-1]])
		} else {
			b.mostLevel--
		}
		for b.mostStart > 0 && int(b.sizes[b.sorted[b.mostStart-1]]) == b.mostLevel {
			b.mostStart--
		}
		b.nextMost = b.mostEnd - 1
	}
	if b.nextMost < 0 {
		return -1
	}
	m := b.sorted[b.nextMost]
	b.nextMost--
	return m
}

// excludeMostLoaded drops the member last returned by nextMostLoaded from the
// most-loaded range because it holds no partition of the topic to give up.
func (b *memberBalancer) excludeMostLoaded() {
	i := b.nextMost + 1
	j := b.mostEnd - 1
	b.sorted[i], b.sorted[j] = b.sorted[j], b.sorted[i]
	b.mostEnd--
}

// balanced reports whether the levels of the two ranges differ by one or less.
func (b *memberBalancer) balanced() bool { return b.mostLevel-b.leastLevel <= 1 }
