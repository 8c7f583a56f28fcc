package conformance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rebalsim/rebalsim/kafka"
)

// applyChange executes a then-step description on the group as it stands
// after prev. Everyone who stays carries what prev gave it (as owned
// partitions in the next generation for a client, as its current target
// for a server). The descriptions vectors use are a small language of
// clauses separated by commas or semicolons:
//
//	remove consumer4
//	remove A and B
//	add consumer5                          (dynamic)
//	add dynamic consumer5
//	add memberA1 with instance_id instanceA
//
// A new member subscribes like the member removed in the same step, or
// like everyone else when all members share one subscription. A static
// member that takes over a removed member's instance id inherits its
// target, as TargetAssignmentBuilder does for a replaced static member.
// Anything else is reported as not executable.
func applyChange(prev *assigned, description string, server bool) ([]memberSpec, error) {
	gen := int32(0)
	for _, m := range prev.members {
		gen = max(gen, m.generation)
	}
	members := slices.Clone(prev.members)
	for i := range members {
		held := prev.final[members[i].id].Clone()
		if server {
			members[i].current = held
		} else {
			members[i].owned, members[i].generation, members[i].hasGeneration = held, gen+1, true
		}
	}
	var removed []memberSpec
	clauses := strings.FieldsFunc(description, func(r rune) bool { return r == ',' || r == ';' })
	for _, clause := range clauses {
		words := strings.Fields(clause)
		if len(words) < 2 {
			return nil, fmt.Errorf("clause %q is not a remove or an add", strings.TrimSpace(clause))
		}
		switch words[0] {
		case "remove":
			for _, id := range words[1:] {
				if id == "and" {
					continue
				}
				i := slices.IndexFunc(members, func(m memberSpec) bool { return m.id == id })
				if i < 0 {
					return nil, fmt.Errorf("no member %q to remove", id)
				}
				removed = append(removed, members[i])
				members = slices.Delete(members, i, i+1)
			}
		case "add":
			m, err := newMember(words[1:], members, removed, server)
			if err != nil {
				return nil, err
			}
			members = append(members, m)
		default:
			return nil, fmt.Errorf("clause %q is not a remove or an add", strings.TrimSpace(clause))
		}
	}
	return members, nil
}

func newMember(words []string, members, removed []memberSpec, server bool) (memberSpec, error) {
	var m memberSpec
	static := false
	switch words[0] {
	case "dynamic":
		words = words[1:]
	case "static":
		static, words = true, words[1:]
	}
	if len(words) == 0 {
		return m, fmt.Errorf("add without a member id")
	}
	m.id, words = words[0], words[1:]
	switch {
	case len(words) == 0:
	case len(words) == 3 && words[0] == "with" && words[1] == "instance_id":
		m.instanceID = words[2]
	default:
		return m, fmt.Errorf("cannot read %q after add %s", strings.Join(words, " "), m.id)
	}
	if static && m.instanceID == "" {
		return m, fmt.Errorf("static member %s without an instance_id", m.id)
	}
	if slices.ContainsFunc(members, func(o memberSpec) bool { return o.id == m.id }) {
		return m, fmt.Errorf("member %s already in the group", m.id)
	}
	switch {
	case len(removed) > 0:
		m.subscription = removed[0].subscription
	case len(members) > 0 && !slices.ContainsFunc(members, func(o memberSpec) bool { return !sameSet(o.subscription, members[0].subscription) }):
		m.subscription = members[0].subscription
	default:
		return m, fmt.Errorf("cannot tell what %s subscribes to", m.id)
	}
	if server && m.instanceID != "" {
		for _, r := range removed {
			if r.instanceID == m.instanceID {
				m.current = r.current.Clone()
			}
		}
	}
	if m.current == nil && server {
		m.current = kafka.Assignment{}
	}
	return m, nil
}
