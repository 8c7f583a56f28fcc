package assignor

import "github.com/rebalsim/rebalsim/kafka"

// RoundRobin returns the round-robin assignor (RoundRobinAssignor,
// "roundrobin", reference §3.2). Every partition of every subscribed topic,
// sorted by (topic, partition), goes to the next member of a circle of the
// members in MemberInfo order that subscribes to its topic. With identical
// subscriptions the counts differ by at most one; with different ones the
// skipping can leave the group badly unbalanced. It is not sticky and
// supports only the EAGER protocol.
func RoundRobin() Assignor { return roundRobinAssignor{} }

type roundRobinAssignor struct{}

func (roundRobinAssignor) Name() string { return "roundrobin" }

func (roundRobinAssignor) Protocols() []kafka.RebalanceProtocol {
	return []kafka.RebalanceProtocol{kafka.Eager}
}

func (roundRobinAssignor) Assign(in Input) Result {
	u := newUniverse(in)
	circle := memberInfoOrder(in.Members)
	owner := u.noOwner()
	next := 0
	for t := range u.names {
		for gp := u.offset[t]; gp < u.offset[t+1]; gp++ {
			// Every topic in the universe has a subscriber, so this stops.
			for !u.subscribes(int(circle[next]), int32(t)) {
				next = (next + 1) % len(circle)
			}
			owner[gp] = circle[next]
			next = (next + 1) % len(circle)
		}
	}
	return Result{Assignment: u.result(owner)}
}
