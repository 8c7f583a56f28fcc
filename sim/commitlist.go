package sim

import (
	"slices"

	"github.com/rebalsim/rebalsim/kafka"
)

// commitList is the list of partitions a process's commit requests carry
// (OffsetCommit.Partitions), listed again only when its claims change. A
// member of a large group changes its claims on nearly every rebalance
// and commits every few seconds, and a list of a thousand partitions made
// anew each time was a third of a big run's allocation: a list that no
// request carries is changed in place.
//
// A request reads its list until its answer has been applied, and an
// answer may be long in coming: the request can wait in the network or
// behind a held request at the coordinator, or be lost with its
// connection. So while a request that carries the list is unanswered,
// the next list is built in memory of its own, and the one before is left
// to its requests and the garbage collector: a request never answered
// costs an allocation, never a list that changes under it. The list
// counts its carriers by the requests' ids rather than by a number, so
// that an answer applied twice cannot free it early. Answers mostly come
// within milliseconds and claims change between rebalances, so the list
// is nearly always free to change in place.
type commitList struct {
	// tps are the partitions of idxs, the process's owned partitions as
	// they were when it was last listed; listed tells that owned has not
	// changed since.
	tps    []kafka.TopicPartition
	idxs   []int
	listed bool
	// carriers are the ids of the unanswered requests that carry tps.
	carriers []int
}

// list brings the list up to date with owned, the process's sorted owned
// partitions, whose partitions the ledger names in tps.
func (c *commitList) list(owned []int, tps []kafka.TopicPartition) {
	if c.listed {
		return
	}
	c.listed = true
	if len(c.carriers) == 0 && cap(c.tps) >= len(owned) {
		c.tps, c.idxs = edit(c.tps, c.idxs, owned, tps), owned
		return
	}
	// Growing to the allocator's size leaves room for a few more, as a
	// member's claims grow one by one.
	next := slices.Grow([]kafka.TopicPartition(nil), len(owned))[:len(owned)]
	relist(next, owned, c.tps, c.idxs, tps)
	c.tps, c.idxs, c.carriers = next, owned, c.carriers[:0]
}

// current is the list for a request, cut to its length so that a request
// that appends to its list cannot write into memory the list grows into.
func (c *commitList) current() []kafka.TopicPartition { return c.tps[:len(c.tps):len(c.tps)] }

// carry notes that the request numbered id carries the current list.
func (c *commitList) carry(id int) { c.carriers = append(c.carriers, id) }

// answered notes that nothing reads the request numbered id any more.
func (c *commitList) answered(id int) {
	if i := slices.Index(c.carriers, id); i >= 0 {
		c.carriers = slices.Delete(c.carriers, i, i+1)
	}
}

// edit changes list, the partitions of was, into those of owned in place
// (its capacity holds them), both ascending: first the partitions owned
// no longer has are dropped, the rest closing up in order; then, from the
// end, the kept ones move up to their places and the new ones are looked
// up in tps. Runs move whole, and the head of the list that comes before
// any change is not moved at all.
func edit(list []kafka.TopicPartition, was, owned []int, tps []kafka.TopicPartition) []kafka.TopicPartition {
	n, j := 0, 0
	for i := 0; i < len(was); {
		for j < len(owned) && owned[j] < was[i] {
			j++
		}
		if j == len(owned) || owned[j] != was[i] {
			i++
			continue
		}
		r := equalHead(was[i:], owned[j:])
		if n != i {
			copy(list[n:n+r], list[i:i+r])
		}
		n, i, j = n+r, i+r, j+r
	}
	// list[:n] are the partitions of owned that was has, in order.
	list = list[:len(owned)]
	i, r := len(was)-1, n-1
	for k := len(owned) - 1; k > r; {
		for i >= 0 && was[i] > owned[k] {
			i--
		}
		if i < 0 || was[i] != owned[k] {
			list[k] = tps[owned[k]]
			k--
			continue
		}
		s := equalTail(was[:i+1], owned[:k+1])
		copy(list[k-s+1:k+1], list[r-s+1:r+1])
		k, r, i = k-s, r-s, i-s
	}
	return list
}

// equalHead is the length of the run of equal entries at the start of a
// and b, compared a block at a time: two lists of a member's partitions
// mostly agree for hundreds of entries.
func equalHead(a, b []int) int {
	n := 0
	for n+listBlock <= len(a) && n+listBlock <= len(b) && [listBlock]int(a[n:n+listBlock]) == [listBlock]int(b[n:n+listBlock]) {
		n += listBlock
	}
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// equalTail is the length of the run of equal entries at the end of a and
// b.
func equalTail(a, b []int) int {
	n := 0
	for ; n+listBlock <= len(a) && n+listBlock <= len(b); n += listBlock {
		x, y := a[len(a)-n-listBlock:len(a)-n], b[len(b)-n-listBlock:len(b)-n]
		if [listBlock]int(x) != [listBlock]int(y) {
			break
		}
	}
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// listBlock is how many entries equalHead and equalTail compare at once.
const listBlock = 32

// relist fills out with the partitions of owned, given those of the
// earlier list was (ascending, their partitions wasTPs): a list mostly
// changes by a few partitions, and the runs it keeps are copied from the
// earlier list in order rather than looked up across the ledger (tps) one
// by one.
func relist(out []kafka.TopicPartition, owned []int, wasTPs []kafka.TopicPartition, was []int, tps []kafka.TopicPartition) {
	j := 0
	for k := 0; k < len(owned); {
		for j < len(was) && was[j] < owned[k] {
			j++
		}
		if j == len(was) || was[j] != owned[k] {
			out[k] = tps[owned[k]]
			k++
			continue
		}
		n := 1
		for k+n < len(owned) && j+n < len(was) && owned[k+n] == was[j+n] {
			n++
		}
		copy(out[k:k+n], wasTPs[j:j+n])
		k, j = k+n, j+n
	}
}
