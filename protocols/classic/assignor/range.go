package assignor

import "github.com/rebalsim/rebalsim/kafka"

// Range returns the range assignor (RangeAssignor, "range", reference
// §3.1). For each topic on its own, the members subscribing to it are put
// in MemberInfo order and given contiguous blocks of partitions; with P
// partitions and n subscribers everyone gets P/n and the first P%n get one
// more. Topics with the same partition count therefore line up
// (co-partitioning), and the first members in the order carry the surplus of
// every topic. It ignores what members owned before, so it is not sticky,
// and it supports only the EAGER protocol. Rack-aware placement is not
// modelled: rebalsim's members have no racks.
func Range() Assignor { return rangeAssignor{} }

type rangeAssignor struct{}

func (rangeAssignor) Name() string { return "range" }

func (rangeAssignor) Protocols() []kafka.RebalanceProtocol {
	return []kafka.RebalanceProtocol{kafka.Eager}
}

func (rangeAssignor) Assign(in Input) Result {
	u := newUniverse(in)
	subscribers := make([][]int32, len(u.names))
	for _, m := range memberInfoOrder(in.Members) {
		for _, t := range u.subs[m] {
			if subscribers[t] == nil {
				// Room for every member: a big group shares one
				// subscription, and growing its list costs more.
				subscribers[t] = make([]int32, 0, len(in.Members))
			}
			subscribers[t] = append(subscribers[t], m)
		}
	}
	owner := u.noOwner()
	for t, members := range subscribers {
		n := int32(len(members))
		quota, extra := u.count(int32(t))/n, u.count(int32(t))%n
		gp := u.offset[t]
		for i, m := range members {
			size := quota
			if int32(i) < extra {
				size++
			}
			for range size {
				owner[gp] = m
				gp++
			}
		}
	}
	return Result{Assignment: u.result(owner)}
}
