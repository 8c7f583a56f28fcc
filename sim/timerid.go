package sim

// TimerKind names a kind of timer ("session", "heartbeat"). A model
// declares each of its kinds once, in a package-level variable, and the
// simulator finds a model's timer by comparing kinds, which compares one
// pointer; the name, which transcripts and panics print, is written once,
// where the kind is declared:
//
//	var timerSession = sim.NewTimerKind("session")
//
// Each declaration is a kind of its own, even under a name another model
// uses too: nothing but the declaring model sets or cancels its timers.
// The zero TimerKind is no kind.
type TimerKind struct{ name *string }

// NewTimerKind declares a kind of timer named name.
func NewTimerKind(name string) TimerKind {
	if name == "" {
		panic("sim: a timer kind needs a name")
	}
	return TimerKind{name: &name}
}

// String is the kind's name.
func (k TimerKind) String() string {
	if k.name == nil {
		return ""
	}
	return *k.name
}

// MemberHandle is a coordinator's number for one of its member ids (see
// MemberHandles). It names the member's timers to the simulator, which
// finds them by it without hashing the id; 0 names no member.
type MemberHandle int32

// MemberHandles numbers a coordinator's member ids from 1, in the order it
// first asks for them, and gives an id the same handle every time: a
// member keeps its handle when it leaves and comes back with its id
// (KIP-1082), when its group changes type, and when a pending id becomes a
// member. A coordinator asks when it puts a member in its member map and
// keeps the handle in its member record, so that arming a member's timers
// on every heartbeat hashes nothing; the numbering lives as long as the
// coordinator. The zero value is ready to use.
type MemberHandles struct {
	byID map[string]MemberHandle
}

// Of returns the handle of memberID.
func (h *MemberHandles) Of(memberID string) MemberHandle {
	if n, ok := h.byID[memberID]; ok {
		return n
	}
	if h.byID == nil {
		h.byID = map[string]MemberHandle{}
	}
	n := MemberHandle(len(h.byID) + 1)
	h.byID[memberID] = n
	return n
}

// TimerID names one timer of a model: its kind and, for a timer kept per
// member (a coordinator's session timers), the member's handle and id.
// The kind and the handle name the timer: setting a TimerID of the same
// kind and handle again re-arms the same timer. The member id is for the
// model, which gets it back when the timer fires, and for the transcript.
type TimerID struct {
	Kind   TimerKind
	Handle MemberHandle
	Member string
}

// String is the timer's name as transcripts print it: the kind, followed
// by "/" and the member id for a member's timer ("session/c1-1").
func (id TimerID) String() string {
	if id.Member == "" {
		return id.Kind.String()
	}
	return id.Kind.String() + "/" + id.Member
}
